package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.TaskContext;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF0;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * Each row numbered as it arrives: its Spark partition, then its place there. A key's rows of a
 * micro-batch reach flatMapGroupsWithState grouped and sorted by key, in no defined order; sorted
 * by this number they come in the order sqlengine/changelog/wire.py gives the Python operators.
 * Spark's own Top-1 (max_by, sqlengine/translate/aggregates.py) orders a micro-batch's ties by the
 * same number: Spark allows no monotonically_increasing_id on a stream.
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

    /** The next number of the task's partition at each call: a copy of it is deserialized per task. */
    private static final class Counter implements UDF0<Long> {
        private transient boolean started;
        private transient long next;

        @Override
        public Long call() {
            if (!started) {
                next = (long) TaskContext.getPartitionId() << 33;
                started = true;
            }
            return next++;
        }
    }

    /**
     * {@code input} with one more column, last: the row's arrival number (BIGINT), from a
     * nondeterministic function evaluated as the rows stream through their stage (a
     * mapPartitions over Java rows cost a Top-1 over 1.84 M bids 11 % of its run; this, about 1 %).
     */
    public static Dataset<Row> numbered(Dataset<Row> input) {
        Column number = functions.udf(new Counter(), DataTypes.LongType).asNondeterministic().apply();
        return input.select(functions.col("*"), number.as("arrival"));
    }
}
