package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * A window aggregation on processing time (TUMBLE, HOP, CUMULATE, and SESSION), as
 * sqlengine/changelog/window_aggregate.py computes it on processing time: a row falls into the
 * windows of its processing time (the start of the micro-batch that read it), and each window's
 * aggregates (Calls.java) come out once, when the wall clock reaches its end. Its state is one
 * value per group key, the key's open windows, in whichever state store the job uses; its rows
 * never leave the JVM.
 *
 * <p>In an unbounded job Spark's processing-time timeouts call a key again once the clock passes
 * its earliest open window's end, input or not (Spark then runs a micro-batch every trigger
 * interval). A bounded job has none (Spark would run batches for them for ever): a key's windows
 * close when later input of the key arrives, and those still open when the input ends are dropped,
 * as Flink drops them (it does not fire processing-time timers once its input has ended).
 *
 * <p>Input: the row kind (always +I), the group keys, the row's window start and end in epoch
 * milliseconds (after a window table function) or its time, then per call its arguments and
 * filter. On a TIMESTAMP_LTZ in 'table.local-time-zone' the times and bounds are the zone's wall
 * times and a window closes at the instant of its end ({@code zoneOffsetMs}: the zone's fixed
 * offset; a zone with daylight saving time stays in Python). Output: the kind (+I), the keys, the
 * window's start and end (wall milliseconds), its time (the clock at emission, as Flink 2.3 gives
 * it), then the calls' results.
 */
public final class WindowAgg implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;
    static final int TUMBLE = 0, HOP = 1, CUMULATE = 2, SESSION = 3;
    // a key's open windows, by end then start (the order they close and are emitted in)
    private static final Comparator<long[]> BY_END = Comparator.<long[]>comparingLong(w -> w[0]).thenComparingLong(w -> w[1]);

    private final int nKeys;
    private final int kind;
    private final long size, slide, offset;  // slide: HOP's slide, CUMULATE's step, SESSION's gap
    private final boolean given;             // each row carries its window's bounds (else its time)
    private final long zoneOffsetMs;
    private final boolean timeouts;
    private final Calls calls;
    private final int arrivalAt;             // the arrival number's position in a row, or -1

    WindowAgg(int nKeys, int kind, long size, long slide, long offset, boolean given, long zoneOffsetMs, boolean timeouts,
              Calls calls, int arrivalAt) {
        this.nKeys = nKeys;
        this.kind = kind;
        this.size = size;
        this.slide = slide;
        this.offset = offset;
        this.given = given;
        this.zoneOffsetMs = zoneOffsetMs;
        this.timeouts = timeouts;
        this.calls = calls;
        this.arrivalAt = arrivalAt;
    }

    /** The (start, end) windows holding the instant {@code t} (window_aggregate.windows_at). */
    private List<long[]> windowsAt(long t) {
        List<long[]> out = new ArrayList<>(1);
        if (kind == TUMBLE) {
            long start = t - Math.floorMod(t - offset, size);
            out.add(new long[] {start, start + size});
        } else if (kind == HOP) {
            long last = t - Math.floorMod(t - offset, slide);  // the latest window start at or before t
            long first = last;
            while (first - slide > t - size) first -= slide;
            for (long s = first; s <= last; s += slide) out.add(new long[] {s, s + size});
        } else {  // CUMULATE: every window of the max-size window that ends after t
            long start = t - Math.floorMod(t - offset, size);
            for (long k = (t - start) / slide + 1; k <= size / slide; k++) out.add(new long[] {start, start + k * slide});
        }
        return out;
    }

    /** When a window ending at {@code end} closes: the clock at its end (an instant). */
    private long closes(long end) {
        return end - zoneOffsetMs;
    }

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        TreeMap<long[], Calls.Acc[]> windows = state.exists() ? load(state.get()) : new TreeMap<>(BY_END);
        // floating sums and ties: in the order the Python operator adds them
        Iterator<Row> rows = Arrival.inOrder(input, arrivalAt);
        boolean changed = false;
        int at = 1 + nKeys;
        while (rows.hasNext()) {
            Row r = rows.next();
            if (r.isNullAt(at)) continue;  // a row without a time is in no window (Spark's window() gives it none)
            if (given) {
                add(windows, new long[] {r.getLong(at + 1), r.getLong(at)}, r);
            } else if (kind == SESSION) {
                add(windows, session(windows, r.getLong(at)), r);
            } else {
                for (long[] w : windowsAt(r.getLong(at))) add(windows, new long[] {w[1], w[0]}, r);
            }
            changed = true;
        }
        // what the wall clock has passed comes out (the clock as the Python operator reads it)
        long now = System.currentTimeMillis();
        List<Row> out = new ArrayList<>();
        Iterator<Map.Entry<long[], Calls.Acc[]>> open = windows.entrySet().iterator();
        while (open.hasNext()) {
            Map.Entry<long[], Calls.Acc[]> w = open.next();
            if (closes(w.getKey()[0]) > now) break;
            out.add(output(key, w.getKey(), w.getValue(), now));
            open.remove();
            changed = true;
        }
        if (windows.isEmpty()) {
            if (state.exists()) state.remove();
        } else {
            if (changed) state.update(save(windows));
            if (timeouts) {  // called again once the clock passes the earliest end, input or not
                state.setTimeoutDuration(Math.max(1, closes(windows.firstKey()[0]) - state.getCurrentProcessingTimeMs()));
            }
        }
        return out.iterator();
    }

    private void add(TreeMap<long[], Calls.Acc[]> windows, long[] endStart, Row r) {
        Calls.Acc[] accs = windows.get(endStart);
        if (accs == null) {
            accs = calls.fresh();
            windows.put(endStart, accs);
        }
        calls.add(accs, r, 1);
    }

    /**
     * The session (end, start) the row at {@code t} belongs to: the key's open one (its latest),
     * extended to {@code t} + the gap (its accumulators moved to the new end), or a new one. Rows
     * come in processing-time order, so sessions never merge.
     */
    private long[] session(TreeMap<long[], Calls.Acc[]> windows, long t) {
        Map.Entry<long[], Calls.Acc[]> latest = windows.lastEntry();
        if (latest == null || t >= latest.getKey()[0]) return new long[] {t + slide, t};
        long[] w = latest.getKey();
        if (t + slide <= w[0]) return w;
        windows.remove(w);
        long[] extended = {t + slide, w[1]};
        windows.put(extended, latest.getValue());
        return extended;
    }

    private Row output(Row key, long[] endStart, Calls.Acc[] accs, long now) {
        Object[] v = new Object[1 + nKeys + 3 + calls.n];
        v[0] = GroupAgg.INSERT;
        for (int i = 0; i < nKeys; i++) v[1 + i] = key.get(i);
        v[1 + nKeys] = endStart[1];
        v[2 + nKeys] = endStart[0];
        v[3 + nKeys] = now;
        for (int j = 0; j < calls.n; j++) v[4 + nKeys + j] = calls.result(j, accs[j]);
        return RowFactory.create(v);
    }

    // -- state: the open windows, [(end, start, acc_1, ..., acc_n)] -----------------------------

    private TreeMap<long[], Calls.Acc[]> load(Row s) {
        TreeMap<long[], Calls.Acc[]> windows = new TreeMap<>(BY_END);
        for (Row w : s.<Row>getList(0)) {
            Calls.Acc[] accs = calls.fresh();
            calls.load(accs, w, 2);
            windows.put(new long[] {w.getLong(0), w.getLong(1)}, accs);
        }
        return windows;
    }

    private Row save(TreeMap<long[], Calls.Acc[]> windows) {
        List<Row> list = new ArrayList<>(windows.size());
        for (Map.Entry<long[], Calls.Acc[]> w : windows.entrySet()) {
            Object[] v = new Object[2 + calls.n];
            v[0] = w.getKey()[0];
            v[1] = w.getKey()[1];
            calls.save(w.getValue(), v, 2);
            list.add(RowFactory.create(v));
        }
        return RowFactory.create(scala.jdk.javaapi.CollectionConverters.asScala(list).toSeq());
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, the keys, the window's start and end or the
     * row's time, then per call its arguments and filter): its rows, as {@code outJson} says (the
     * kind, the keys, start, end and time as BIGINT milliseconds, the calls). {@code window}:
     * TUMBLE, HOP, CUMULATE or SESSION; the calls as GroupAgg.apply takes them; {@code timeouts}:
     * Spark's processing-time timeouts close windows without input (an unbounded job).
     */
    public static Dataset<Row> apply(Dataset<Row> input, int nKeys, String window, long size, long slide, long offset,
                                     boolean given, long zoneOffsetMs, boolean timeouts, String[] funcs, int[] nArgs,
                                     boolean[] filtered, String[] typings, int[] precision, int[] scale, String outJson) {
        StructField[] fields = input.schema().fields();
        StructType out = (StructType) DataType.fromJson(outJson);
        StructField[] outFields = out.fields();
        DataType[] results = new DataType[funcs.length];
        for (int j = 0; j < funcs.length; j++) results[j] = outFields[4 + nKeys + j].dataType();
        int first = 1 + nKeys + (given ? 2 : 1);
        Calls calls = new Calls(fields, first, funcs, nArgs, filtered, typings, precision, scale, false, results);
        int kind = switch (window) {
            case "TUMBLE" -> TUMBLE;
            case "HOP" -> HOP;
            case "CUMULATE" -> CUMULATE;
            case "SESSION" -> SESSION;
            default -> throw new IllegalArgumentException("no JVM window " + window);
        };
        List<StructField> entry = new ArrayList<>(List.of(
            DataTypes.createStructField("end", DataTypes.LongType, false),
            DataTypes.createStructField("start", DataTypes.LongType, false)));
        entry.addAll(calls.schema());
        StructType state = DataTypes.createStructType(List.of(
            DataTypes.createStructField("windows", DataTypes.createArrayType(DataTypes.createStructType(entry), false), false)));

        WindowAgg op = new WindowAgg(nKeys, kind, size, slide, offset, given, zoneOffsetMs, timeouts, calls,
                                     calls.ordered ? fields.length : -1);
        Dataset<Row> rows = calls.ordered ? Arrival.numbered(input) : input;
        GroupStateTimeout timeout = timeouts ? GroupStateTimeout.ProcessingTimeTimeout() : GroupStateTimeout.NoTimeout();
        return rows.groupByKey(GroupAgg.keyOf(nKeys), Encoders.row(GroupAgg.keySchema(fields, nKeys)))
            .flatMapGroupsWithState(op, OutputMode.Append(), Encoders.row(state), Encoders.row(out), timeout);
    }
}
