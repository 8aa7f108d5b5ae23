package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Deduplication of an insert-only input ({@code ROW_NUMBER() OVER (PARTITION BY k ORDER BY time
 * [DESC]) = 1}) as sqlengine/changelog/dedup.py computes it (the same changes, batch by batch), on
 * Spark's flatMapGroupsWithState: its state is one value per key in whichever state store the job
 * uses, and its rows never leave the JVM.
 *
 * <p>Input: the row kind (always +I), then the input fields; each row is numbered as it arrives
 * ({@link Arrival}). State per key: the row kept, and when it was last written (the TTL). Keep-first
 * on event time replaces the row when an earlier one arrives, keep-last when one at the same time
 * or later does (NULL times first), keep-last on processing time with every row, keep-first on
 * processing time never. Output per micro-batch and key: +I for the key's first row, -U/+U when the
 * kept row was replaced by a different one; or, for a versioned view a temporal join reads, each
 * replacement as it happens. The rank number (BIGINT 1) at its position, if projected.
 */
public final class Dedup implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;

    private final int width;          // the input fields (the kind and the arrival number excluded)
    private final int order;          // the time column's position among them
    private final boolean keepLast;
    private final boolean onProctime;
    private final int rankPosition;   // where the rank goes in the output fields, or -1
    private final long ttlMs;         // 0: none (a key's state expires, unseen, that long after its last write)
    private final boolean everyChange;
    // Spark's processing-time timeouts release an idle key's state (an unbounded job; a bounded
    // one ends instead: with them Spark would run batches without input for ever)
    private final boolean timeouts;

    Dedup(int width, int order, boolean keepLast, boolean onProctime, int rankPosition, long ttlMs, boolean everyChange,
          boolean timeouts) {
        this.width = width;
        this.order = order;
        this.keepLast = keepLast;
        this.onProctime = onProctime;
        this.rankPosition = rankPosition;
        this.ttlMs = ttlMs;
        this.everyChange = everyChange;
        this.timeouts = timeouts;
    }

    private boolean replaces(Row row, Row kept) {
        if (onProctime) return keepLast;  // the last arrival, or never past the first
        int c = TopN.compareValues(row.get(order), kept.get(order), false);
        return keepLast ? c >= 0 : c < 0;
    }

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        long now = state.getCurrentProcessingTimeMs();  // the micro-batch's start, as the Python operator's clock
        if (state.hasTimedOut()) {  // idle longer than the TTL: gone, nothing retracted
            state.remove();
            return Collections.emptyIterator();
        }
        Row before = null;
        long written = 0;
        if (state.exists()) {
            Row s = state.get();
            if (ttlMs > 0 && now >= s.getLong(1) + ttlMs) {
                state.remove();  // expired before its timeout ran: the next row comes through again
            } else {
                before = s.getStruct(0);
                written = s.getLong(1);
            }
        }
        Row kept = before;
        boolean replaced = false;
        List<Row> out = new ArrayList<>();
        for (Iterator<Row> rows = Arrival.inOrder(input, width + 1); rows.hasNext(); ) {
            Row row = fields(rows.next());
            if (kept != null && !replaces(row, kept)) continue;
            if (everyChange) {
                if (kept != null) out.add(output(TopN.UPDATE_BEFORE, kept));
                out.add(output(kept != null ? TopN.UPDATE_AFTER : TopN.INSERT, row));
            }
            kept = row;
            replaced = true;
        }
        if (!replaced) {
            // nothing changed: the key's TTL runs from its last write still (a timeout is dropped
            // by a call that does not set it again)
            if (timeouts && before != null) state.setTimeoutDuration(Math.max(1, written + ttlMs - now));
            return out.iterator();
        }
        if (!everyChange) {
            if (before == null) {
                out.add(output(TopN.INSERT, kept));
            } else if (!TopN.sameRow(before, kept)) {
                out.add(output(TopN.UPDATE_BEFORE, before));
                out.add(output(TopN.UPDATE_AFTER, kept));
            }
        }
        state.update(RowFactory.create(kept, now));
        if (timeouts) state.setTimeoutDuration(ttlMs);
        return out.iterator();
    }

    private Row fields(Row r) {
        Object[] v = new Object[width];
        for (int i = 0; i < width; i++) v[i] = r.get(i + 1);
        return RowFactory.create(v);
    }

    private Row output(byte kind, Row row) {
        int extra = rankPosition < 0 ? 0 : 1;
        Object[] v = new Object[1 + width + extra];
        v[0] = kind;
        for (int i = 0, j = 1; i < width; i++, j++) {
            if (i == rankPosition) v[j++] = 1L;
            v[j] = row.get(i);
        }
        if (rankPosition == width) v[width + 1] = 1L;
        return RowFactory.create(v);
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, then the fields): its changes, as
     * {@code outJson} (a StructType as JSON: the kind, then the output fields) says.
     */
    public static Dataset<Row> apply(Dataset<Row> input, int[] keyCols, int order, boolean keepLast, boolean onProctime,
                                     int rankPosition, long ttlMs, boolean timeouts, boolean everyChange, String outJson) {
        StructType in = input.schema();
        int width = in.fields().length - 1;
        StructField[] fields = Arrays.copyOfRange(in.fields(), 1, width + 1);
        StructType stateSchema = DataTypes.createStructType(List.of(
            DataTypes.createStructField("row", DataTypes.createStructType(fields), false),
            DataTypes.createStructField("written", DataTypes.LongType, false)));
        StructType out = (StructType) DataType.fromJson(outJson);
        boolean timed = timeouts && ttlMs > 0;
        GroupStateTimeout timeout = timed ? GroupStateTimeout.ProcessingTimeTimeout() : GroupStateTimeout.NoTimeout();
        return TopN.byKeys(input, fields, keyCols)
            .flatMapGroupsWithState(new Dedup(width, order, keepLast, onProctime, rankPosition, ttlMs, everyChange, timed),
                OutputMode.Append(), Encoders.row(stateSchema), Encoders.row(out), timeout);
    }
}
