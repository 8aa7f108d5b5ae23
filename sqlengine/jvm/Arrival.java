package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Each row numbered as it arrives: its Spark partition, then its place there. A key's rows of a
 * micro-batch reach flatMapGroupsWithState grouped and sorted by key, in no defined order; sorted
 * by this number they come in the order sqlengine/changelog/wire.py gives the Python operators.
 * Spark's own Top-1 (max_by, sqlengine/translate/aggregates.py) orders a micro-batch's ties by it:
 * Spark allows no monotonically_increasing_id on a stream.
 */
public final class Arrival {
    private Arrival() {}

    /** A key's rows of a micro-batch in arrival order ({@code arrivalAt}: the number's position; -1: as they come). */
    static Iterator<Row> inOrder(Iterator<Row> input, int arrivalAt) {
        if (arrivalAt < 0) return input;
        List<Row> arrived = new ArrayList<>();
        input.forEachRemaining(arrived::add);
        arrived.sort(Comparator.comparingLong(r -> r.getLong(arrivalAt)));
        return arrived.iterator();
    }

    /** {@code input} with one more column, last: the row's arrival number (BIGINT). */
    public static Dataset<Row> numbered(Dataset<Row> input) {
        StructType in = input.schema();
        int width = in.fields().length;
        MapPartitionsFunction<Row, Row> number = rows -> {
            long base = (long) TaskContext.getPartitionId() << 33;
            return new Iterator<Row>() {
                long seq = base;
                public boolean hasNext() { return rows.hasNext(); }
                public Row next() {
                    Row r = rows.next();
                    Object[] v = new Object[width + 1];
                    for (int i = 0; i < width; i++) v[i] = r.get(i);
                    v[width] = seq++;
                    return RowFactory.create(v);
                }
            };
        };
        return input.mapPartitions(number, Encoders.row(in.add("arrival", DataTypes.LongType, false)));
    }
}
