package sqlengine.jvm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.sql.catalyst.CatalystTypeConverters$;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Predicate$;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A regular join over changelogs on the equality of its keys (INNER, LEFT, RIGHT, FULL, and the
 * semi and anti joins of IN and NOT IN), either input updating, as sqlengine/changelog/join.py
 * computes it (the same changes, batch by batch; a further condition on both sides' fields decides
 * which candidate pairs match, evaluated by Spark's own expressions), on Spark's
 * flatMapGroupsWithState: its state is one value per join key in whichever state store the job
 * uses, and its rows never leave the JVM.
 *
 * <p>Input: the row kind, the side (0 left, 1 right), the join key's columns, the left fields,
 * then the right fields (the other side's NULL). A key with a NULL matches nothing: its rows are
 * emitted alone (an outer side's padded, an anti join's left) and not kept. State per key:
 * each side's distinct rows, each with how many copies the side holds and, on a counted side (an
 * outer side, the left of a semi or anti join), how many rows of the other side it matches (one
 * long: matches << 32 | count, as the Python operator keeps it), and under a state TTL when it was
 * last inserted: a row not inserted again for its side's TTL is gone, nothing retracted (as
 * Flink's, and the Python operator's: the micro-batch's start is the clock). Output, +I and -D only: an
 * outer side's row without a match padded with NULLs, retracted at its first match and emitted
 * again when its last match leaves; a semi join's left row at its first match, an anti join's
 * while it has none. A key's changes of one micro-batch are netted, retractions first; its rows
 * are applied left side first, each side's in arrival order, as the Python operator applies them.
 */
public final class Join implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;
    static final int INNER = 0, LEFT = 1, RIGHT = 2, FULL = 3, SEMI = 4, ANTI = 5;
    private static final long COUNT = (1L << 32) - 1, MATCH = 1L << 32;

    private final int kind;
    private final int keys;              // the key's columns
    private final int[] widths;          // each side's fields
    private final boolean[] counted;     // the sides that count their matches
    private final long[] ttls;           // each side's state TTL in ms (0: none)
    private final boolean timeouts;      // expired rows released on Spark's processing-time timeouts
    // the condition beyond the keys on both sides' fields (null: none), resolved by Spark's
    // analyzer over a pair of rows (the left fields, then the right ones: ``pair``), evaluated per
    // candidate pair as the Python operator's residual is; built into a predicate per task
    private final Expression residual;
    private final scala.collection.immutable.Seq<Attribute> pair;
    private final StructType pairType;
    private transient BasePredicate predicate;
    private transient scala.Function1<Object, Object> toCatalyst;

    Join(int kind, int keys, int[] widths, boolean[] counted, long[] ttls, boolean timeouts, Expression residual,
         scala.collection.immutable.Seq<Attribute> pair, StructType pairType) {
        this.kind = kind;
        this.keys = keys;
        this.widths = widths;
        this.counted = counted;
        this.ttls = ttls;
        this.timeouts = timeouts;
        this.residual = residual;
        this.pair = pair;
        this.pairType = pairType;
    }

    /** Whether {@code row} (of {@code side}) and {@code other} (of the other side) meet the residual. */
    private boolean meets(int side, Row row, Row other) {
        if (predicate == null) {
            predicate = Predicate$.MODULE$.create(residual, pair);
            predicate.initialize(0);
            toCatalyst = CatalystTypeConverters$.MODULE$.createToCatalystConverter(pairType);
        }
        Object[] v = new Object[widths[0] + widths[1]];
        Row left = side == 0 ? row : other, right = side == 0 ? other : row;
        for (int i = 0; i < widths[0]; i++) v[i] = left.get(i);
        for (int i = 0; i < widths[1]; i++) v[widths[0] + i] = right.get(i);
        return predicate.eval((InternalRow) toCatalyst.apply(RowFactory.create(v)));
    }

    /** A held row with Flink's equality (field by field, bytes by content, NaN equal to NaN). */
    private static final class Held {
        final Row row;
        final int hash;
        long held;     // matches << 32 | count
        long written;  // when last inserted (under a TTL)

        Held(Row row, long held, long written) {
            this.row = row;
            this.held = held;
            this.written = written;
            int h = 1;
            for (int i = 0; i < row.length(); i++) {
                Object v = row.get(i);
                h = 31 * h + (v instanceof byte[] ? Arrays.hashCode((byte[]) v) : Objects.hashCode(v));
            }
            this.hash = h;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Held)) return false;
            Held other = (Held) o;
            if (other.hash != hash || other.row.length() != row.length()) return false;
            for (int i = 0; i < row.length(); i++) {
                Object a = row.get(i), b = other.row.get(i);
                if (a instanceof byte[] && b instanceof byte[]) {
                    if (!Arrays.equals((byte[]) a, (byte[]) b)) return false;
                } else if (!Objects.equals(a, b)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The changes of one key's micro-batch, netted: each output row's count, in first-seen order. */
    private static final class Net {
        final Map<Held, long[]> counts = new LinkedHashMap<>();

        void emit(Row row, long n) {
            if (n != 0) counts.computeIfAbsent(new Held(row, 0, 0), r -> new long[1])[0] += n;
        }
    }

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        long now = ttled() ? state.getCurrentProcessingTimeMs() : 0;  // the micro-batch's start
        boolean matchable = true;  // a NULL in the key matches nothing
        for (int i = 0; i < key.length(); i++) if (key.isNullAt(i)) matchable = false;
        @SuppressWarnings("unchecked")
        Map<Held, Held>[] sides = new Map[] {new LinkedHashMap<Held, Held>(), new LinkedHashMap<Held, Held>()};
        // a key with a NULL matches nothing: each row's output is its own (padded or none), so
        // its rows are not kept (the key would hold every such row, read and written each batch)
        if (matchable && state.exists()) {
            Row s = state.get();
            for (int side = 0; side < 2; side++) {
                for (Row r : s.<Row>getList(side)) {
                    Held h = new Held(r.getStruct(0), r.getLong(1), ttled() ? r.getLong(2) : 0);
                    // idle longer than its side's TTL: gone (never matched, nothing retracted)
                    if (ttls[side] == 0 || now < h.written + ttls[side]) sides[side].put(h, h);
                }
            }
        }
        List<Row> arrived = new ArrayList<>();
        int width = 2 + keys + widths[0] + widths[1];
        input.forEachRemaining(arrived::add);
        // the left rows first, then the right ones, each in arrival order
        arrived.sort(Comparator.<Row>comparingInt(r -> r.getInt(1)).thenComparingLong(r -> r.getLong(width)));
        Net net = new Net();
        for (Row r : arrived) {
            int side = r.getInt(1);
            Object[] v = new Object[widths[side]];
            int from = 2 + keys + (side == 0 ? 0 : widths[0]);
            for (int i = 0; i < v.length; i++) v[i] = r.get(from + i);
            one(side, r.getByte(0) == TopN.INSERT || r.getByte(0) == TopN.UPDATE_AFTER ? 1 : -1, RowFactory.create(v),
                matchable, sides, net, now);
        }
        if (!matchable) {
            if (state.exists()) state.remove();  // (a checkpoint of an earlier build kept them)
        } else if (sides[0].isEmpty() && sides[1].isEmpty()) {
            if (state.exists()) state.remove();
        } else {
            state.update(save(sides));
            long first = firstExpiry(sides);
            if (timeouts && first != Long.MAX_VALUE) state.setTimeoutDuration(Math.max(1, first - now));
        }
        List<Row> out = new ArrayList<>();
        for (Map.Entry<Held, long[]> e : net.counts.entrySet()) {  // retractions first: no negative count downstream
            for (long i = e.getValue()[0]; i < 0; i++) out.add(output(TopN.DELETE, e.getKey().row));
        }
        for (Map.Entry<Held, long[]> e : net.counts.entrySet()) {
            for (long i = 0; i < e.getValue()[0]; i++) out.add(output(TopN.INSERT, e.getKey().row));
        }
        return out.iterator();
    }

    private void one(int side, int sign, Row row, boolean matchable, Map<Held, Held>[] sides, Net net, long now) {
        if (!matchable) {  // no match ever: alone, padded, on a side that emits it so; not kept
            if (emitsPadded(side)) net.emit(joined(side, row, null), sign);
            return;
        }
        Map<Held, Held> own = sides[side], other = sides[1 - side];
        Held probe = new Held(row, 0, now);
        Held held = own.get(probe);
        if (sign < 0 && held == null) return;  // the retraction of a row this side does not hold
        // (the other side's rows are only counted and updated below, never added or removed)
        Collection<Held> matches = other.values();
        if (residual != null && !matches.isEmpty()) {
            List<Held> meeting = new ArrayList<>();
            for (Held m : matches) if (meets(side, row, m.row)) meeting.add(m);
            matches = meeting;
        }
        long nMatches = 0;
        for (Held m : matches) nMatches += m.held & COUNT;
        boolean semiAnti = kind == SEMI || kind == ANTI;
        if (side == 0 || !semiAnti) {
            // this row's own output: joined with each match, or alone (padded) when it has none
            if (nMatches > 0) {
                if (kind == SEMI) {
                    net.emit(joined(side, row, null), sign);
                } else if (kind != ANTI) {
                    for (Held m : matches) net.emit(joined(side, row, m.row), sign * (m.held & COUNT));
                }
            } else if (emitsPadded(side)) {
                net.emit(joined(side, row, null), sign);
            }
        }
        // the other side's rows it matches: a padded row loses (or regains) its last match
        if (counted[1 - side]) {
            int oSide = 1 - side;
            for (Held m : matches) {
                long before = m.held, after = before + sign * MATCH;
                m.held = after;
                if ((before < MATCH) == (after < MATCH)) continue;  // still matched, or still unmatched
                boolean nowMatched = after >= MATCH;
                long n = before & COUNT;
                if (emitsPadded(oSide)) net.emit(joined(oSide, m.row, null), nowMatched ? -n : n);
                if (kind == SEMI) net.emit(joined(oSide, m.row, null), nowMatched ? n : -n);
            }
        }
        // store or release the row
        if (held == null) {
            held = probe;
            held.held = nMatches * MATCH;
            own.put(held, held);
        }
        held.held += sign;
        if (sign > 0) held.written = now;  // (a retraction leaves its TTL running)
        if ((held.held & COUNT) == 0) own.remove(held);  // no copy left
    }

    private boolean ttled() {
        return ttls[0] > 0 || ttls[1] > 0;
    }

    /** When the first of the held rows under a TTL expires (Long.MAX_VALUE: none does). */
    private long firstExpiry(Map<Held, Held>[] sides) {
        long first = Long.MAX_VALUE;
        for (int side = 0; side < 2; side++) {
            if (ttls[side] == 0) continue;
            for (Held h : sides[side].values()) first = Math.min(first, h.written + ttls[side]);
        }
        return first;
    }

    /** Whether a row of {@code side} without a match is in the output: an outer side, or the left of an anti join. */
    private boolean emitsPadded(int side) {
        return side == 0 ? kind == LEFT || kind == FULL || kind == ANTI : kind == RIGHT || kind == FULL;
    }

    /** The output row of {@code row} (of {@code side}) with {@code other} (null: NULLs). */
    private Row joined(int side, Row row, Row other) {
        if (kind == SEMI || kind == ANTI) return row;
        Object[] v = new Object[widths[0] + widths[1]];
        Row left = side == 0 ? row : other, right = side == 0 ? other : row;
        if (left != null) for (int i = 0; i < widths[0]; i++) v[i] = left.get(i);
        if (right != null) for (int i = 0; i < widths[1]; i++) v[widths[0] + i] = right.get(i);
        return RowFactory.create(v);
    }

    private static Row output(byte kind, Row row) {
        Object[] v = new Object[1 + row.length()];
        v[0] = kind;
        for (int i = 0; i < row.length(); i++) v[i + 1] = row.get(i);
        return RowFactory.create(v);
    }

    private Row save(Map<Held, Held>[] sides) {
        Object[] out = new Object[2];
        for (int side = 0; side < 2; side++) {
            List<Row> rows = new ArrayList<>(sides[side].size());
            for (Held h : sides[side].values()) rows.add(ttled() ? RowFactory.create(h.row, h.held, h.written) : RowFactory.create(h.row, h.held));
            out[side] = scala.jdk.javaapi.CollectionConverters.asScala(rows).toSeq();
        }
        return RowFactory.create(out);
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, the side, {@code keys} key columns, the left
     * fields, the right fields: {@code leftWidth} of them): its changes, as {@code outJson} (a
     * StructType as JSON: the kind, then the output fields) says. {@code leftTtl}, {@code
     * rightTtl}: each side's state TTL in ms (0: none); {@code timeouts}: Spark's processing-time
     * timeouts release the rows it expires (else a key's are released when it is next touched).
     */
    public static Dataset<Row> apply(Dataset<Row> input, int kind, int keys, int leftWidth, boolean countsLeft,
                                     boolean countsRight, long leftTtl, long rightTtl, boolean timeouts, String outJson,
                                     Expression residual, scala.collection.immutable.Seq<Attribute> pair,
                                     String pairJson) {
        StructField[] in = input.schema().fields();
        StructField[] fields = Arrays.copyOfRange(in, 1, in.length);
        int from = 2 + keys;
        StructType[] rows = {
            DataTypes.createStructType(Arrays.copyOfRange(in, from, from + leftWidth)),
            DataTypes.createStructType(Arrays.copyOfRange(in, from + leftWidth, in.length)),
        };
        boolean ttled = leftTtl > 0 || rightTtl > 0;
        StructField[] state = new StructField[2];
        for (int side = 0; side < 2; side++) {
            List<StructField> entry = new ArrayList<>(List.of(
                DataTypes.createStructField("row", rows[side], false),
                DataTypes.createStructField("held", DataTypes.LongType, false)));
            if (ttled) entry.add(DataTypes.createStructField("written", DataTypes.LongType, false));
            StructType held = DataTypes.createStructType(entry);
            state[side] = DataTypes.createStructField(side == 0 ? "left" : "right", ArrayType.apply(held, false), false);
        }
        int[] keyCols = new int[keys];
        for (int i = 0; i < keys; i++) keyCols[i] = i + 1;  // after the side
        StructType out = (StructType) DataType.fromJson(outJson);
        int[] widths = {leftWidth, in.length - from - leftWidth};
        return TopN.byKeys(input, fields, keyCols)
            .flatMapGroupsWithState(new Join(kind, keys, widths, new boolean[] {countsLeft, countsRight},
                    new long[] {leftTtl, rightTtl}, timeouts && ttled, residual, pair,
                    residual == null ? null : (StructType) DataType.fromJson(pairJson)),
                OutputMode.Append(), Encoders.row(DataTypes.createStructType(state)), Encoders.row(out),
                timeouts && ttled ? GroupStateTimeout.ProcessingTimeTimeout() : GroupStateTimeout.NoTimeout());
    }
}
