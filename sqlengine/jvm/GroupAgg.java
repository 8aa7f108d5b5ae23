package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.api.java.function.MapFunction;
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
 * Group aggregation over a changelog (Flink's GroupAggFunction with retraction), as
 * sqlengine/changelog/aggregate.py computes it: the same changes, batch by batch, for COUNT(*),
 * COUNT, SUM, AVG, MIN and MAX (with FILTER and DISTINCT; Calls.java), on Spark's flatMapGroupsWithState. Its
 * state is one value per group key in whichever state store the job uses, and its rows never
 * leave the JVM.
 *
 * <p>Input: the row kind, the group key columns, then per call its argument columns and, with a
 * FILTER clause, the filter's value. State per group: the number of input rows it holds (+1 for
 * each +I/+U, -1 for each -U/-D), the row last emitted, one accumulator per call, and under a
 * state TTL when it was last written: a group not written for the TTL is gone, nothing retracted
 * (its next row starts it afresh, +I), as Flink's and the Python operator's (the micro-batch's
 * start is the clock). The planner runs it under a TTL only in an unbounded job, which releases an
 * idle group on Spark's processing-time timeouts (a bounded job cannot run those: its aggregation
 * under a TTL stays in Python, planner/analysis/jvm_operators.py). Output per micro-batch and
 * group: +I for a new group, -U/+U when its row changed, -D when its last row was retracted;
 * nothing when the row is unchanged (as Flink's equaliser compares binary rows), unless under a
 * TTL: Flink then emits it again, so that the operators after it keep their state of it alive.
 */
public final class GroupAgg implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;
    static final byte INSERT = 0, UPDATE_BEFORE = 1, UPDATE_AFTER = 2, DELETE = 3;

    private final int nKeys;
    private final Calls calls;
    private final int arrivalAt;  // the arrival number's position in a row, or -1: any order will do
    private final long ttlMs;     // 0: none
    private final boolean timeouts;  // idle groups released on Spark's processing-time timeouts

    GroupAgg(int nKeys, Calls calls, int arrivalAt, long ttlMs, boolean timeouts) {
        this.nKeys = nKeys;
        this.calls = calls;
        this.arrivalAt = arrivalAt;
        this.ttlMs = ttlMs;
        this.timeouts = timeouts;
    }

    private static final class Group {
        long rows;
        Calls.Acc[] accs;
        Row emitted;
        long written;  // under a TTL: when last written
    }

    // -- one group's rows of a micro-batch ----------------------------------------------------

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        long now = ttlMs > 0 ? state.getCurrentProcessingTimeMs() : 0;  // the micro-batch's start
        if (state.hasTimedOut()) {  // idle longer than the TTL: gone, nothing retracted
            state.remove();
            return Collections.emptyIterator();
        }
        Group g = state.exists() ? load(state.get()) : null;
        if (g != null && ttlMs > 0 && now >= g.written + ttlMs) g = null;  // expired before its timeout ran
        // floating sums and ties: in the order the Python operator adds them
        Iterator<Row> rows = Arrival.inOrder(input, arrivalAt);
        Row before = g == null ? null : g.emitted;
        boolean touched = false;
        while (rows.hasNext()) {
            Row r = rows.next();
            byte kind = r.getByte(0);
            int sign = kind == INSERT || kind == UPDATE_AFTER ? 1 : -1;
            if (g == null) {
                if (sign < 0) continue;  // a retraction of a group this operator does not hold (Flink ignores it)
                g = fresh();
            }
            touched = true;
            g.rows += sign;
            calls.add(g.accs, r, sign);
        }
        if (!touched) {  // (only retractions of a group not held)
            if (state.exists()) state.remove();  // (an expired one)
            return Collections.emptyIterator();
        }
        List<Row> out = new ArrayList<>(2);
        if (g.rows <= 0) {
            if (before != null) out.add(output(DELETE, before));
            state.remove();
            return out.iterator();
        }
        Row row = row(key, g);
        if (before == null) {
            out.add(output(INSERT, row));
        } else if (ttlMs > 0 || !sameRow(row, before)) {
            out.add(output(UPDATE_BEFORE, before));
            out.add(output(UPDATE_AFTER, row));
        }
        g.emitted = row;
        g.written = now;
        state.update(save(g));
        if (timeouts) state.setTimeoutDuration(ttlMs);
        return out.iterator();
    }

    private Row row(Row key, Group g) {
        Object[] v = new Object[nKeys + calls.n];
        for (int i = 0; i < nKeys; i++) v[i] = key.get(i);
        for (int j = 0; j < calls.n; j++) v[nKeys + j] = calls.result(j, g.accs[j]);
        return RowFactory.create(v);
    }

    /** Two result rows equal as Flink's equaliser compares its binary rows (values.same_row). */
    static boolean sameRow(Row a, Row b) {
        for (int i = 0; i < a.length(); i++) {
            Object x = a.get(i), y = b.get(i);
            if (x instanceof Double || x instanceof Float) {
                if (!(y instanceof Number) || Double.doubleToLongBits(((Number) x).doubleValue()) != Double.doubleToLongBits(((Number) y).doubleValue())) return false;
            } else if (!TopN.same(x, y)) {
                return false;
            }
        }
        return true;
    }

    private static Row output(byte kind, Row row) {
        Object[] v = new Object[row.length() + 1];
        v[0] = kind;
        for (int i = 0; i < row.length(); i++) v[i + 1] = row.get(i);
        return RowFactory.create(v);
    }

    // -- state: [rows, emitted, acc_1, ..., acc_n(, written under a TTL)] ---------------------

    private Group fresh() {
        Group g = new Group();
        g.accs = calls.fresh();
        return g;
    }

    private Group load(Row s) {
        Group g = fresh();
        g.rows = s.getLong(0);
        g.emitted = s.isNullAt(1) ? null : s.getStruct(1);
        calls.load(g.accs, s, 2);
        if (ttlMs > 0) g.written = s.getLong(2 + calls.n);
        return g;
    }

    private Row save(Group g) {
        Object[] v = new Object[2 + calls.n + (ttlMs > 0 ? 1 : 0)];
        v[0] = g.rows;
        v[1] = g.emitted;
        calls.save(g.accs, v, 2);
        if (ttlMs > 0) v[2 + calls.n] = g.written;
        return RowFactory.create(v);
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, the keys, then per call its arguments and filter):
     * its changes, as {@code outJson} (a StructType as JSON: the kind, the keys, the calls) says.
     * {@code funcs}: COUNT_STAR, COUNT, SUM, AVG, MIN or MAX; {@code typings}: long, decimal,
     * float or as-is, with the decimal's precision and scale; {@code ttlMs}: the state TTL (0:
     * none); {@code timeouts}: Spark's processing-time timeouts release the groups it expires
     * (else each is released when next touched).
     */
    public static Dataset<Row> apply(Dataset<Row> input, int nKeys, String[] funcs, int[] nArgs, boolean[] filtered,
                                     String[] typings, int[] precision, int[] scale, boolean retracting, long ttlMs,
                                     boolean timeouts, String outJson) {
        StructField[] fields = input.schema().fields();
        StructType out = (StructType) DataType.fromJson(outJson);
        StructField[] outFields = out.fields();
        DataType[] results = new DataType[funcs.length];
        for (int j = 0; j < funcs.length; j++) results[j] = outFields[1 + nKeys + j].dataType();
        Calls calls = new Calls(fields, 1 + nKeys, funcs, nArgs, filtered, typings, precision, scale, retracting, results);
        List<StructField> state = new ArrayList<>(List.of(
            DataTypes.createStructField("rows", DataTypes.LongType, false),
            DataTypes.createStructField("emitted", DataTypes.createStructType(java.util.Arrays.copyOfRange(outFields, 1, outFields.length)), true)));
        state.addAll(calls.schema());
        if (ttlMs > 0) state.add(DataTypes.createStructField("written", DataTypes.LongType, false));

        boolean timed = timeouts && ttlMs > 0;
        GroupAgg op = new GroupAgg(nKeys, calls, calls.ordered ? fields.length : -1, ttlMs, timed);
        Dataset<Row> rows = calls.ordered ? Arrival.numbered(input) : input;
        return rows.groupByKey(keyOf(nKeys), Encoders.row(keySchema(fields, nKeys)))
            .flatMapGroupsWithState(op, OutputMode.Append(), Encoders.row(DataTypes.createStructType(state)), Encoders.row(out),
                                    timed ? GroupStateTimeout.ProcessingTimeTimeout() : GroupStateTimeout.NoTimeout());
    }

    /** The group key of an input row (the kind first, then the {@code nKeys} keys); without keys, 0. */
    static MapFunction<Row, Row> keyOf(int nKeys) {
        return r -> {
            if (nKeys == 0) return RowFactory.create(0);
            Object[] v = new Object[nKeys];
            for (int i = 0; i < nKeys; i++) v[i] = r.get(1 + i);
            return RowFactory.create(v);
        };
    }

    static StructType keySchema(StructField[] fields, int nKeys) {
        List<StructField> keyFields = new ArrayList<>();
        for (int i = 0; i < nKeys; i++) keyFields.add(fields[1 + i]);
        if (keyFields.isEmpty()) keyFields.add(DataTypes.createStructField("all", DataTypes.IntegerType, false));
        return DataTypes.createStructType(keyFields);
    }
}
