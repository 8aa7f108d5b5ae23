package sqlengine.jvm;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Group aggregation over a changelog (Flink's GroupAggFunction with retraction), as
 * sqlengine/changelog/aggregate.py computes it: the same changes, batch by batch, for COUNT(*),
 * COUNT, SUM, AVG, MIN and MAX (with FILTER), on Spark's flatMapGroupsWithState. Its state is one
 * value per group key in whichever state store the job uses, and its rows never leave the JVM.
 *
 * <p>Input: the row kind, the group key columns, then per call its argument columns and, with a
 * FILTER clause, the filter's value. State per group: the number of input rows it holds (+1 for
 * each +I/+U, -1 for each -U/-D), the row last emitted, and one accumulator per call. No state
 * TTL: under one the planner keeps the aggregation in Python (planner/analysis/jvm_operators.py),
 * whose idle groups are found without Spark's timeouts, which a bounded job cannot run. An accumulator is a count; a sum and its count of values (an integer sum
 * exact past 64 bits, a decimal one to 100 digits, as Python's are); the extreme value (MIN/MAX
 * over appends); or every value with its count (MIN/MAX over updates, so that retracting the
 * extreme falls back to the next). Output per micro-batch and group: +I for a new group, -U/+U
 * when its row changed, -D when its last row was retracted; nothing when the row is unchanged
 * (as Flink's equaliser compares binary rows).
 */
public final class GroupAgg implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
    private static final long serialVersionUID = 1L;
    static final byte INSERT = 0, UPDATE_BEFORE = 1, UPDATE_AFTER = 2, DELETE = 3;
    static final int COUNT_STAR = 0, COUNT = 1, SUM = 2, AVG = 3, MIN = 4, MAX = 5;
    // how a result is made the type the batch engine gives it (sqlengine.changelog.values.Typing)
    static final int AS_IS = 0, LONG = 1, DECIMAL = 2, FLOAT = 3;
    private static final MathContext DIGITS = new MathContext(100, RoundingMode.HALF_UP);  // values.DECIMAL_CONTEXT
    private static final BigDecimal EXACT_DOUBLE = BigDecimal.valueOf(1L << 53);

    private final int nKeys;
    private final int[] func, argAt, nArgs, filterAt;  // positions among the input fields
    private final int[] typing, precision, scale;
    private final boolean[] textual;                  // MIN/MAX of strings: compared by code point
    private final boolean[] floating;                 // the argument is FLOAT or DOUBLE: a floating sum
    private final DataType[] results;                 // each call's result type
    private final boolean retracting;                 // the input updates: MIN/MAX keep every value
    private final int arrivalAt;                      // the arrival number's position in a row, or -1: any order will do

    GroupAgg(int nKeys, int[] func, int[] argAt, int[] nArgs, int[] filterAt, int[] typing, int[] precision, int[] scale,
             boolean[] textual, boolean[] floating, DataType[] results, boolean retracting, int arrivalAt) {
        this.nKeys = nKeys;
        this.func = func;
        this.argAt = argAt;
        this.nArgs = nArgs;
        this.filterAt = filterAt;
        this.typing = typing;
        this.precision = precision;
        this.scale = scale;
        this.textual = textual;
        this.floating = floating;
        this.results = results;
        this.retracting = retracting;
        this.arrivalAt = arrivalAt;
    }

    /** One call's accumulator, as held between two writes of its group's state. */
    private static final class Acc {
        long n;            // COUNT: the count; SUM/AVG: the values summed (+1 each added, -1 each taken back)
        long l;            // an integer sum, while it fits 64 bits
        double d;          // a floating sum
        BigDecimal big;    // a decimal sum, or an integer one past 64 bits
        Object v;          // MIN/MAX over appends: the extreme so far
        TreeMap<Object, long[]> values;  // MIN/MAX over updates: each value's count
    }

    private static final class Group {
        long rows;
        Acc[] accs;
        Row emitted;
    }

    // -- accumulating -------------------------------------------------------------------------

    private void update(int j, Acc a, Row r, int sign) {
        int at = argAt[j] + 1;  // the kind comes first
        switch (func[j]) {
            case COUNT_STAR -> a.n += sign;
            case COUNT -> {
                for (int i = 0; i < nArgs[j]; i++) if (r.isNullAt(at + i)) return;
                a.n += sign;
            }
            case SUM, AVG -> {
                Object v = r.get(at);
                if (v == null) return;
                add(a, v, sign);
                a.n += sign;
            }
            default -> {
                Object v = r.get(at);
                if (v == null) return;
                if (retracting) {
                    long[] count = a.values.get(v);
                    long now = (count == null ? 0 : count[0]) + sign;
                    if (now > 0) {
                        if (count == null) a.values.put(v, new long[] {now});
                        else count[0] = now;
                    } else if (count != null) {
                        a.values.remove(v);
                    }
                } else if (a.v == null) {
                    a.v = v;
                } else {
                    int c = TopN.compareValues(v, a.v, textual[j]);  // a tie keeps the first
                    if (func[j] == MAX ? c > 0 : c < 0) a.v = v;
                }
            }
        }
    }

    private static void add(Acc a, Object v, int sign) {
        if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            a.d = sign > 0 ? a.d + x : a.d - x;
        } else if (v instanceof BigDecimal x) {
            BigDecimal sum = a.big == null ? BigDecimal.ZERO : a.big;
            a.big = sign > 0 ? sum.add(x, DIGITS) : sum.subtract(x, DIGITS);
        } else {
            long x = ((Number) v).longValue();
            if (a.big == null) {
                try {
                    a.l = sign > 0 ? Math.addExact(a.l, x) : Math.subtractExact(a.l, x);
                    return;
                } catch (ArithmeticException past64Bits) {
                    a.big = BigDecimal.valueOf(a.l);
                }
            }
            a.big = sign > 0 ? a.big.add(BigDecimal.valueOf(x)) : a.big.subtract(BigDecimal.valueOf(x));
        }
    }

    // -- results ------------------------------------------------------------------------------

    private Object value(int j, Acc a) {
        switch (func[j]) {
            case COUNT_STAR, COUNT -> { return a.n; }
            case SUM, AVG -> {
                if (a.n <= 0) return null;
                Object total = floating[j] ? (Object) a.d : a.big != null ? a.big : (Object) a.l;
                return func[j] == AVG ? divide(j, total, a.n) : cast(j, total);
            }
            default -> {
                if (!retracting) return a.v;
                if (a.values.isEmpty()) return null;
                return func[j] == MAX ? a.values.lastKey() : a.values.firstKey();
            }
        }
    }

    private Object cast(int j, Object v) {
        return switch (typing[j]) {
            case LONG -> v instanceof Long ? v : exact(v).toBigInteger().longValue();  // truncated, then wrapped at 64 bits
            case DECIMAL -> {
                BigDecimal q = exact(v).setScale(scale[j], RoundingMode.HALF_UP);
                // a value with more digits than the type holds is NULL (Spark, ANSI mode off)
                yield q.precision() - q.scale() > precision[j] - scale[j] ? null : q;
            }
            case FLOAT -> v instanceof Double ? v : v instanceof Long x ? (double) x : ((BigDecimal) v).doubleValue();
            default -> v;
        };
    }

    /** An average: {@code total / n} in the result's type (integers truncate toward zero). */
    private Object divide(int j, Object total, long n) {
        return switch (typing[j]) {
            case LONG -> {
                if (total instanceof Long x) yield x / n;
                if (total instanceof Double x) yield cast(j, Math.copySign(Math.floor(Math.abs(x) / n), x));
                yield cast(j, ((BigDecimal) total).divideToIntegralValue(BigDecimal.valueOf(n)));
            }
            case DECIMAL -> cast(j, exact(total).divide(BigDecimal.valueOf(n), DIGITS));
            default -> {
                if (total instanceof Double x) yield cast(j, x / n);
                if (total instanceof Long x && Math.abs(x) <= (1L << 53)) yield cast(j, (double) x / n);  // both exact: one rounding
                BigDecimal t = exact(total);
                yield cast(j, t.abs().compareTo(EXACT_DOUBLE) <= 0 && t.scale() <= 0 ? t.doubleValue() / n
                                                                                     : t.divide(BigDecimal.valueOf(n), DIGITS));
            }
        };
    }

    private static BigDecimal exact(Object v) {
        if (v instanceof BigDecimal x) return x;
        if (v instanceof Double || v instanceof Float) return new BigDecimal(((Number) v).doubleValue());
        return BigDecimal.valueOf(((Number) v).longValue());
    }

    /** A value as the result type's Java class (the calls compute in long, double, BigDecimal). */
    static Object as(Object v, DataType t) {
        if (v == null || !(v instanceof Number x)) return v;
        if (t instanceof LongType) return x.longValue();
        if (t instanceof IntegerType) return x.intValue();
        if (t instanceof ShortType) return x.shortValue();
        if (t instanceof ByteType) return x.byteValue();
        if (t instanceof DoubleType) return x.doubleValue();
        if (t instanceof FloatType) return x.floatValue();
        if (t instanceof DecimalType) return exact(x);
        return v;
    }

    // -- one group's rows of a micro-batch ----------------------------------------------------

    @Override
    public Iterator<Row> call(Row key, Iterator<Row> input, GroupState<Row> state) {
        Group g = state.exists() ? load(state.get()) : null;
        Iterator<Row> rows = input;
        if (arrivalAt >= 0) {  // floating sums and ties: in the order the Python operator adds them
            List<Row> arrived = new ArrayList<>();
            input.forEachRemaining(arrived::add);
            arrived.sort(Comparator.comparingLong(r -> r.getLong(arrivalAt)));
            rows = arrived.iterator();
        }
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
            for (int j = 0; j < func.length; j++) {
                if (filterAt[j] >= 0 && !Boolean.TRUE.equals(r.get(filterAt[j] + 1))) continue;
                update(j, g.accs[j], r, sign);
            }
        }
        if (!touched) return Collections.emptyIterator();
        List<Row> out = new ArrayList<>(2);
        if (g.rows <= 0) {
            if (before != null) out.add(output(DELETE, before));
            state.remove();
            return out.iterator();
        }
        Row row = row(key, g);
        if (before == null) {
            out.add(output(INSERT, row));
        } else if (!sameRow(row, before)) {
            out.add(output(UPDATE_BEFORE, before));
            out.add(output(UPDATE_AFTER, row));
        }
        g.emitted = row;
        state.update(save(g));
        return out.iterator();
    }

    private Row row(Row key, Group g) {
        Object[] v = new Object[nKeys + func.length];
        for (int i = 0; i < nKeys; i++) v[i] = key.get(i);
        for (int j = 0; j < func.length; j++) v[nKeys + j] = as(value(j, g.accs[j]), results[j]);
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

    // -- state: [rows, emitted, acc_1, ..., acc_n] --------------------------------------------

    private Group fresh() {
        Group g = new Group();
        g.accs = new Acc[func.length];
        for (int j = 0; j < func.length; j++) {
            g.accs[j] = new Acc();
            if (retracting && (func[j] == MIN || func[j] == MAX)) g.accs[j].values = multiset(j);
        }
        return g;
    }

    private TreeMap<Object, long[]> multiset(int j) {
        boolean text = textual[j];
        return new TreeMap<>((a, b) -> TopN.compareValues(a, b, text));
    }

    private Group load(Row s) {
        Group g = fresh();
        g.rows = s.getLong(0);
        g.emitted = s.isNullAt(1) ? null : s.getStruct(1);
        for (int j = 0; j < func.length; j++) {
            Row a = s.getStruct(2 + j);
            Acc acc = g.accs[j];
            switch (func[j]) {
                case COUNT_STAR, COUNT -> acc.n = a.getLong(0);
                case SUM, AVG -> {
                    acc.n = a.getLong(0);
                    acc.l = a.getLong(1);
                    acc.d = a.getDouble(2);
                    acc.big = a.isNullAt(3) ? null : new BigDecimal(a.getString(3));
                }
                default -> {
                    if (!retracting) {
                        acc.v = a.get(0);
                    } else {
                        for (Row e : a.<Row>getList(0)) acc.values.put(e.get(0), new long[] {e.getLong(1)});
                    }
                }
            }
        }
        return g;
    }

    private Row save(Group g) {
        Object[] v = new Object[2 + func.length];
        v[0] = g.rows;
        v[1] = g.emitted;
        for (int j = 0; j < func.length; j++) {
            Acc a = g.accs[j];
            v[2 + j] = switch (func[j]) {
                case COUNT_STAR, COUNT -> RowFactory.create(a.n);
                case SUM, AVG -> RowFactory.create(a.n, a.l, a.d, a.big == null ? null : a.big.toString());
                default -> {
                    if (!retracting) yield RowFactory.create(a.v);
                    List<Row> entries = new ArrayList<>(a.values.size());
                    for (Map.Entry<Object, long[]> e : a.values.entrySet()) entries.add(RowFactory.create(e.getKey(), e.getValue()[0]));
                    yield RowFactory.create(scala.jdk.javaapi.CollectionConverters.asScala(entries).toSeq());
                }
            };
        }
        return RowFactory.create(v);
    }

    private static StructType accSchema(int func, boolean retracting, DataType arg) {
        List<StructField> f = new ArrayList<>();
        switch (func) {
            case COUNT_STAR, COUNT -> f.add(DataTypes.createStructField("n", DataTypes.LongType, false));
            case SUM, AVG -> {
                f.add(DataTypes.createStructField("n", DataTypes.LongType, false));
                f.add(DataTypes.createStructField("l", DataTypes.LongType, false));
                f.add(DataTypes.createStructField("d", DataTypes.DoubleType, false));
                f.add(DataTypes.createStructField("big", DataTypes.StringType, true));  // exact, any number of digits
            }
            default -> {
                if (!retracting) {
                    f.add(DataTypes.createStructField("v", arg, true));
                } else {
                    StructType entry = DataTypes.createStructType(List.of(
                        DataTypes.createStructField("v", arg, false), DataTypes.createStructField("n", DataTypes.LongType, false)));
                    f.add(DataTypes.createStructField("values", DataTypes.createArrayType(entry, false), false));
                }
            }
        }
        return DataTypes.createStructType(f);
    }

    // -- building it into a query ------------------------------------------------------------

    /**
     * The operator over {@code input} (the kind, the keys, then per call its arguments and filter):
     * its changes, as {@code outJson} (a StructType as JSON: the kind, the keys, the calls) says.
     * {@code funcs}: COUNT_STAR, COUNT, SUM, AVG, MIN or MAX; {@code typings}: long, decimal,
     * float or as-is, with the decimal's precision and scale.
     */
    public static Dataset<Row> apply(Dataset<Row> input, int nKeys, String[] funcs, int[] nArgs, boolean[] filtered,
                                     String[] typings, int[] precision, int[] scale, boolean retracting, String outJson) {
        StructField[] fields = input.schema().fields();
        int calls = funcs.length;
        int[] func = new int[calls], argAt = new int[calls], filterAt = new int[calls], typing = new int[calls];
        boolean[] textual = new boolean[calls], floating = new boolean[calls];
        DataType[] argTypes = new DataType[calls];
        boolean ordered = false;
        int at = nKeys;
        for (int j = 0; j < calls; j++) {
            func[j] = switch (funcs[j]) {
                case "COUNT_STAR" -> COUNT_STAR;
                case "COUNT" -> COUNT;
                case "SUM" -> SUM;
                case "AVG" -> AVG;
                case "MIN" -> MIN;
                case "MAX" -> MAX;
                default -> throw new IllegalArgumentException("no JVM aggregate " + funcs[j]);
            };
            typing[j] = switch (typings[j]) {
                case "long" -> LONG;
                case "decimal" -> DECIMAL;
                case "float" -> FLOAT;
                default -> AS_IS;
            };
            argAt[j] = at;
            if (nArgs[j] > 0) {
                argTypes[j] = fields[1 + at].dataType();
                textual[j] = argTypes[j] instanceof StringType;
                floating[j] = argTypes[j] instanceof DoubleType || argTypes[j] instanceof FloatType;
                ordered |= floating[j] && func[j] != COUNT;  // floating sums, -0.0 against 0.0
            }
            at += nArgs[j];
            filterAt[j] = filtered[j] ? at++ : -1;
        }
        // over updates, a retraction of a group not held is dropped only when it comes before the
        // group's first row: the rows must come in the order the Python operator reads them
        ordered |= retracting;
        StructType out = (StructType) DataType.fromJson(outJson);
        StructField[] outFields = out.fields();
        DataType[] results = new DataType[calls];
        for (int j = 0; j < calls; j++) results[j] = outFields[1 + nKeys + j].dataType();
        List<StructField> state = new ArrayList<>(List.of(
            DataTypes.createStructField("rows", DataTypes.LongType, false),
            DataTypes.createStructField("emitted", DataTypes.createStructType(java.util.Arrays.copyOfRange(outFields, 1, outFields.length)), true)));
        for (int j = 0; j < calls; j++) state.add(DataTypes.createStructField("a" + j, accSchema(func[j], retracting, argTypes[j]), false));

        List<StructField> keyFields = new ArrayList<>();
        for (int i = 0; i < nKeys; i++) keyFields.add(fields[1 + i]);
        if (keyFields.isEmpty()) keyFields.add(DataTypes.createStructField("all", DataTypes.IntegerType, false));
        MapFunction<Row, Row> keyOf = r -> {
            if (nKeys == 0) return RowFactory.create(0);
            Object[] v = new Object[nKeys];
            for (int i = 0; i < nKeys; i++) v[i] = r.get(1 + i);
            return RowFactory.create(v);
        };
        GroupAgg op = new GroupAgg(nKeys, func, argAt, nArgs.clone(), filterAt, typing, precision.clone(), scale.clone(), textual,
                                   floating, results, retracting, ordered ? fields.length : -1);
        Dataset<Row> rows = ordered ? Arrival.numbered(input) : input;
        return rows.groupByKey(keyOf, Encoders.row(DataTypes.createStructType(keyFields)))
            .flatMapGroupsWithState(op, OutputMode.Append(), Encoders.row(DataTypes.createStructType(state)), Encoders.row(out),
                                    GroupStateTimeout.NoTimeout());
    }
}
