package sqlengine.jvm;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.KeyValueGroupedDataset;
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
 * Top-N per partition over a changelog, as sqlengine/changelog/topn.py computes it (the same
 * changes, batch by batch), on Spark's flatMapGroupsWithState: its state is one value per
 * partition key in whichever state store the job uses (no RocksDB required), and its rows never
 * leave the JVM.
 *
 * <p>Input: the row kind, then the input fields; each row is numbered as it arrives (its Spark
 * partition, then its place there), which orders a key's rows of a micro-batch as
 * sqlengine/changelog/wire.py orders them for the Python operator. State per key, by Flink's
 * strategies: the rows ranked within N (AppendFastStrategy: the input only appends;
 * UpdateFastStrategy: upserts whose order only improves, a row replacing the one of its upsert
 * key), or every row the input holds (RetractStrategy: a retraction may bring any back into the
 * top N); sorted by the order, ties in arrival order; and when they were last written (the
 * TTL). Output: the kind byte, then the input fields with the rank number (BIGINT) at its
 * position, if any.
 */
public final class TopN implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;
    static final byte INSERT = 0, UPDATE_BEFORE = 1, UPDATE_AFTER = 2, DELETE = 3;
    static final int ROW_NUMBER = 0, RANK = 1, DENSE_RANK = 2;
    static final int APPEND_FAST = 0, UPDATE_FAST = 1, RETRACT = 2;

    private final int width;           // the input fields (the kind and the arrival number excluded)
    private final int[] orderCols;     // positions among the input fields
    private final boolean[] desc;
    private final boolean[] textual;   // compared by code point, as Python and Flink compare strings
    private final int n;
    private final int function;
    private final int rankPosition;    // where the rank goes in the output fields, or -1
    private final long ttlMs;          // 0: none (the partition's state expires, unseen, that long after its last write)
    private final int strategy;
    private final int[] rowKey;        // UpdateFastStrategy: the upsert key's positions
    // Spark's processing-time timeouts release an idle partition's state (an unbounded job; a
    // bounded one ends instead: with them Spark would run batches without input for ever)
    private final boolean timeouts;

    TopN(int width, int[] orderCols, boolean[] desc, boolean[] textual, int n, int function, int rankPosition, long ttlMs,
         int strategy, int[] rowKey, boolean timeouts) {
        this.width = width;
        this.orderCols = orderCols;
        this.desc = desc;
        this.textual = textual;
        this.n = n;
        this.function = function;
        this.rankPosition = rankPosition;
        this.ttlMs = ttlMs;
        this.strategy = strategy;
        this.rowKey = rowKey;
        this.timeouts = timeouts;
    }

    // -- order: NULLs smallest, NaN above every number (first ascending, last descending) -------

    private int compareRows(Row a, Row b) {
        for (int i = 0; i < orderCols.length; i++) {
            int c = compareValues(a.get(orderCols[i]), b.get(orderCols[i]), textual[i]);
            if (c != 0) return desc[i] ? -c : c;
        }
        return 0;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compareValues(Object a, Object b, boolean textual) {
        if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
        if (a instanceof Double || a instanceof Float) {
            double x = ((Number) a).doubleValue(), y = ((Number) b).doubleValue();
            boolean nx = Double.isNaN(x), ny = Double.isNaN(y);
            if (nx || ny) return nx ? (ny ? 0 : 1) : -1;
            return x < y ? -1 : x > y ? 1 : 0;  // -0.0 ties 0.0, as in Python
        }
        if (textual) return codePoints((String) a, (String) b);
        if (a instanceof byte[]) return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
        if (a instanceof BigDecimal) return ((BigDecimal) a).compareTo((BigDecimal) b);
        return ((Comparable) a).compareTo(b);
    }

    private static int codePoints(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i), y = b.codePointAt(j);
            if (x != y) return x < y ? -1 : 1;
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    // -- ranking -----------------------------------------------------------------------------

    /** The ranks of the rows within rank N (entries past it get none: the list is shorter). */
    private long[] ranks(List<Row> rows) {
        int size = function == ROW_NUMBER ? Math.min(n, rows.size()) : rows.size();
        long[] out = new long[size];
        long rank = 0, dense = 0;
        for (int i = 0; i < size; i++) {
            if (function == ROW_NUMBER) {
                out[i] = i + 1;
                continue;
            }
            if (i == 0 || compareRows(rows.get(i - 1), rows.get(i)) != 0) {
                rank = i + 1;
                dense++;
            }
            long r = function == RANK ? rank : dense;
            if (r > n) return Arrays.copyOf(out, i);
            out[i] = r;
        }
        return out;
    }

    /** The first row that does not sort before {@code row}. */
    private int lowerBound(List<Row> rows, Row row) {
        int lo = 0, hi = rows.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRows(rows.get(mid), row) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private boolean sameKey(Row a, Row b) {
        for (int k : rowKey) if (!same(a.get(k), b.get(k))) return false;
        return true;
    }

    /** Two rows equal as the Python operator's tuples are: the same object, or equal values. */
    static boolean sameRow(Row a, Row b) {
        if (a == b) return true;
        for (int i = 0; i < a.length(); i++) if (!same(a.get(i), b.get(i))) return false;
        return true;
    }

    /** Python's == on two values: NaN equals nothing, -0.0 equals 0.0, bytes by content. */
    static boolean same(Object a, Object b) {
        if (a == null || b == null) return a == b;
        if (a instanceof Double || a instanceof Float) return ((Number) a).doubleValue() == ((Number) b).doubleValue();
        if (a instanceof byte[] && b instanceof byte[]) return Arrays.equals((byte[]) a, (byte[]) b);
        if (a instanceof BigDecimal && b instanceof BigDecimal) return ((BigDecimal) a).compareTo((BigDecimal) b) == 0;
        return a.equals(b);
    }

    /** Where a row goes: after every row it ties with (arrival order). */
    private int upperBound(List<Row> rows, Row row) {
        int lo = 0, hi = rows.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRows(rows.get(mid), row) <= 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        // the micro-batch's start: the clock Spark's timeouts run on
        long now = state.getCurrentProcessingTimeMs();
        if (state.hasTimedOut()) {  // idle longer than the TTL: gone, nothing retracted
            state.remove();
            return java.util.Collections.emptyIterator();
        }
        List<Row> kept = new ArrayList<>();
        if (state.exists()) {
            Row s = state.get();
            if (ttlMs > 0 && now >= s.getLong(1) + ttlMs) state.remove();  // expired before its timeout ran
            else kept.addAll(s.getList(0));
        }
        List<Row> arrived = new ArrayList<>();
        input.forEachRemaining(arrived::add);
        int seqAt = width + 1;
        arrived.sort(Comparator.comparingLong(r -> r.getLong(seqAt)));

        long[] beforeRanks = ranks(kept);
        List<Row> before = new ArrayList<>(kept.subList(0, beforeRanks.length));
        // appends ranked by ROW_NUMBER without a TTL: a row no better than the Nth of a full
        // partition never enters, and does not count as a change (with a TTL it keeps the
        // partition alive)
        boolean skip = strategy == APPEND_FAST && function == ROW_NUMBER && ttlMs == 0;
        boolean exists = !kept.isEmpty();  // as the Python operator's partition: until its batch ends
        boolean touched = false;
        for (Row r : arrived) {
            boolean adds = r.getByte(0) == INSERT || r.getByte(0) == UPDATE_AFTER;
            Row row = fields(r);
            if (skip && kept.size() >= n && compareRows(row, kept.get(n - 1)) >= 0) continue;
            if (!exists && !adds) continue;  // the retraction of a row this operator does not hold
            exists = touched = true;
            if (strategy == RETRACT) {
                if (adds) {
                    kept.add(upperBound(kept, row), row);
                } else {
                    for (int i = lowerBound(kept, row); i < kept.size() && compareRows(kept.get(i), row) == 0; i++) {
                        if (sameRow(kept.get(i), row)) {
                            kept.remove(i);
                            break;
                        }
                    }
                }
                continue;
            }
            if (!adds) continue;  // UpdateFastStrategy: an update's -U is followed by its +U, which replaces the row
            if (strategy == UPDATE_FAST) kept.removeIf(old -> sameKey(old, row));
            kept.add(upperBound(kept, row), row);
            int keep = function == ROW_NUMBER ? n : ranks(kept).length;
            if (kept.size() > keep) kept.subList(keep, kept.size()).clear();
        }
        if (!touched) return java.util.Collections.emptyIterator();
        List<Row> out = new ArrayList<>();
        emit(out, before, beforeRanks, kept, ranks(kept));
        if (kept.isEmpty()) {
            state.remove();
        } else {
            state.update(RowFactory.create(scala.jdk.javaapi.CollectionConverters.asScala(kept).toSeq(), now));
            if (timeouts) state.setTimeoutDuration(ttlMs);
        }
        return out.iterator();
    }

    private Row fields(Row r) {
        Object[] v = new Object[width];
        for (int i = 0; i < width; i++) v[i] = r.get(i + 1);
        return RowFactory.create(v);
    }

    private void emit(List<Row> out, List<Row> before, long[] br, List<Row> after, long[] ar) {
        if (rankPosition < 0) {  // the rows that left the top -D, those that entered +I
            List<Row> gone = new ArrayList<>(before.subList(0, br.length));
            for (int i = 0; i < ar.length; i++) {
                Row row = after.get(i);
                int at = 0;
                while (at < gone.size() && !sameRow(gone.get(at), row)) at++;
                if (at < gone.size()) gone.remove(at);
                else out.add(output(INSERT, row, 0));
            }
            for (Row row : gone) out.add(output(DELETE, row, 0));
            return;
        }
        for (int i = 0; i < Math.max(br.length, ar.length); i++) {
            Row old = i < br.length ? before.get(i) : null, now = i < ar.length ? after.get(i) : null;
            if (old != null && now != null) {
                if (br[i] == ar[i] && sameRow(old, now)) continue;
                out.add(output(UPDATE_BEFORE, old, br[i]));
                out.add(output(UPDATE_AFTER, now, ar[i]));
            } else if (now != null) {
                out.add(output(INSERT, now, ar[i]));
            } else {
                out.add(output(DELETE, old, br[i]));
            }
        }
    }

    private Row output(byte kind, Row row, long rank) {
        int extra = rankPosition < 0 ? 0 : 1;
        Object[] v = new Object[1 + width + extra];
        v[0] = kind;
        for (int i = 0, j = 1; i < width; i++, j++) {
            if (i == rankPosition) v[j++] = rank;
            v[j] = row.get(i);
        }
        if (rankPosition == width) v[width + 1] = rank;
        return RowFactory.create(v);
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, then the fields): its changes, as
     * {@code outJson} (a StructType as JSON: the kind, then the output fields) says.
     */
    public static Dataset<Row> apply(Dataset<Row> input, int[] keyCols, int[] orderCols, boolean[] desc, int n,
                                     String function, int rankPosition, long ttlMs, boolean timeouts, String strategy,
                                     int[] rowKey, String outJson) {
        StructType in = input.schema();
        int width = in.fields().length - 1;
        StructField[] fields = Arrays.copyOfRange(in.fields(), 1, width + 1);
        boolean[] textual = new boolean[orderCols.length];
        for (int i = 0; i < orderCols.length; i++) {
            DataType t = fields[orderCols[i]].dataType();
            textual[i] = t instanceof org.apache.spark.sql.types.StringType;
        }
        int fn = switch (function) {
            case "ROW_NUMBER" -> ROW_NUMBER;
            case "RANK" -> RANK;
            case "DENSE_RANK" -> DENSE_RANK;
            default -> throw new IllegalArgumentException("no rank function " + function);
        };
        int kept = switch (strategy) {
            case "AppendFastStrategy" -> APPEND_FAST;
            case "UpdateFastStrategy" -> UPDATE_FAST;
            case "RetractStrategy" -> RETRACT;
            default -> throw new IllegalArgumentException("no rank strategy " + strategy);
        };
        StructType stateSchema = DataTypes.createStructType(List.of(
            DataTypes.createStructField("rows", DataTypes.createArrayType(DataTypes.createStructType(fields), false), false),
            DataTypes.createStructField("written", DataTypes.LongType, false)));
        StructType out = (StructType) DataType.fromJson(outJson);
        boolean timed = timeouts && ttlMs > 0;
        GroupStateTimeout timeout = timed ? GroupStateTimeout.ProcessingTimeTimeout() : GroupStateTimeout.NoTimeout();
        return byKeys(input, fields, keyCols)
            .flatMapGroupsWithState(new TopN(width, orderCols.clone(), desc.clone(), textual, n, fn, rankPosition, ttlMs, kept, rowKey.clone(), timed),
                OutputMode.Append(), Encoders.row(stateSchema), Encoders.row(out), timeout);
    }

    /**
     * {@code input}'s rows (the kind, then {@code fields}), numbered as they arrive, grouped by the
     * fields at {@code keyCols} (one group when there are none), as the keyed Java operators read them.
     */
    static KeyValueGroupedDataset<Row, Row> byKeys(Dataset<Row> input, StructField[] fields, int[] keyCols) {
        List<StructField> keyFields = new ArrayList<>();
        for (int k : keyCols) keyFields.add(fields[k]);
        if (keyFields.isEmpty()) keyFields.add(DataTypes.createStructField("all", DataTypes.IntegerType, false));
        int[] keys = keyCols.clone();
        MapFunction<Row, Row> keyOf = r -> {
            if (keys.length == 0) return RowFactory.create(0);
            Object[] v = new Object[keys.length];
            for (int i = 0; i < keys.length; i++) v[i] = r.get(keys[i] + 1);
            return RowFactory.create(v);
        };
        return Arrival.numbered(input).groupByKey(keyOf, Encoders.row(DataTypes.createStructType(keyFields)));
    }
}
