package sqlengine.jvm;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
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
 * The aggregate calls of a JVM aggregation (GroupAgg.java, WindowAgg.java), computed as
 * sqlengine/changelog/accumulator.py computes them: COUNT(*), COUNT, SUM, AVG, MIN and MAX, each
 * with an optional FILTER. An accumulator is a count; a sum and its count of values (an integer
 * sum exact past 64 bits, a decimal one to 100 digits, as Python's are); the extreme value (MIN/MAX
 * over appends); or every value with its count (MIN/MAX over updates, so that retracting the
 * extreme falls back to the next). COUNT, SUM and AVG with DISTINCT (of one argument) keep each
 * value with its count, in the order the values came (a value taken back to none and added again
 * comes last), as the Python operator's dict does; their result is over the values. Each is
 * stored as one struct in the operator's state row.
 */
final class Calls implements Serializable {
    private static final long serialVersionUID = 1L;
    static final int COUNT_STAR = 0, COUNT = 1, SUM = 2, AVG = 3, MIN = 4, MAX = 5;
    // how a result is made the type the batch engine gives it (sqlengine.changelog.values.Typing)
    static final int AS_IS = 0, LONG = 1, DECIMAL = 2, FLOAT = 3;
    private static final MathContext DIGITS = new MathContext(100, RoundingMode.HALF_UP);  // values.DECIMAL_CONTEXT
    private static final BigDecimal EXACT_DOUBLE = BigDecimal.valueOf(1L << 53);

    final int n;                                      // the calls
    private final int[] func, argAt, nArgs, filterAt;  // positions in an input row (the kind is at 0)
    private final int[] typing, precision, scale;
    private final boolean[] textual;                  // MIN/MAX of strings: compared by code point
    private final boolean[] floating;                 // the argument is FLOAT or DOUBLE: a floating sum
    private final boolean[] distinct;                 // COUNT, SUM or AVG over the distinct values
    private final DataType[] argTypes;
    final DataType[] results;                         // each call's result type
    private final boolean retracting;                 // the input updates: MIN/MAX keep every value
    // a floating sum, or -0.0 against 0.0, depends on the order values come in: the rows must come
    // in the order the Python operator reads them (Arrival.java)
    final boolean ordered;

    /** One call's accumulator, as held between two writes of its state. */
    static final class Acc {
        long n;            // COUNT: the count; SUM/AVG: the values summed (+1 each added, -1 each taken back)
        long l;            // an integer sum, while it fits 64 bits
        double d;          // a floating sum
        BigDecimal big;    // a decimal sum, or an integer one past 64 bits
        Object v;          // MIN/MAX over appends: the extreme so far
        TreeMap<Object, long[]> values;  // MIN/MAX over updates: each value's count
        LinkedHashMap<Object, long[]> seen;  // DISTINCT: each value's count, in the order they came
    }

    /**
     * The calls over input rows whose fields are {@code fields} (the kind first), their arguments
     * from position {@code first} on: per call its arguments ({@code nArgs}) and, if
     * {@code filtered}, the filter's value. {@code funcs}: COUNT_STAR, COUNT, SUM, AVG, MIN or MAX,
     * or COUNT_DISTINCT, SUM_DISTINCT or AVG_DISTINCT (of one argument that is not floating);
     * {@code typings}: long, decimal, float or as-is, with the decimal's precision and scale.
     */
    Calls(StructField[] fields, int first, String[] funcs, int[] nArgs, boolean[] filtered, String[] typings, int[] precision,
          int[] scale, boolean retracting, DataType[] results) {
        n = funcs.length;
        func = new int[n];
        argAt = new int[n];
        filterAt = new int[n];
        typing = new int[n];
        textual = new boolean[n];
        floating = new boolean[n];
        distinct = new boolean[n];
        argTypes = new DataType[n];
        boolean order = retracting;  // over updates, a retraction before its group's first row is dropped
        int at = first;
        for (int j = 0; j < n; j++) {
            distinct[j] = funcs[j].endsWith("_DISTINCT");
            func[j] = switch (funcs[j].replace("_DISTINCT", "")) {
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
                argTypes[j] = fields[at].dataType();
                textual[j] = argTypes[j] instanceof StringType;
                floating[j] = argTypes[j] instanceof DoubleType || argTypes[j] instanceof FloatType;
                order |= floating[j] && func[j] != COUNT;
            }
            at += nArgs[j];
            filterAt[j] = filtered[j] ? at++ : -1;
        }
        this.nArgs = nArgs.clone();
        this.precision = precision.clone();
        this.scale = scale.clone();
        this.retracting = retracting;
        this.results = results;
        this.ordered = order;
    }

    // -- accumulating -------------------------------------------------------------------------

    Acc[] fresh() {
        Acc[] accs = new Acc[n];
        for (int j = 0; j < n; j++) {
            accs[j] = new Acc();
            if (distinct[j]) accs[j].seen = new LinkedHashMap<>();
            if (retracting && (func[j] == MIN || func[j] == MAX)) {
                boolean text = textual[j];
                accs[j].values = new TreeMap<>((a, b) -> TopN.compareValues(a, b, text));
            }
        }
        return accs;
    }

    /** The row {@code r} added to ({@code sign} 1) or taken back from (-1) every call its filter lets it into. */
    void add(Acc[] accs, Row r, int sign) {
        for (int j = 0; j < n; j++) {
            if (filterAt[j] >= 0 && !Boolean.TRUE.equals(r.get(filterAt[j]))) continue;
            update(j, accs[j], r, sign);
        }
    }

    private void update(int j, Acc a, Row r, int sign) {
        int at = argAt[j];
        if (distinct[j]) {
            Object v = r.get(at);
            if (v != null) count(a.seen, v, sign);
            return;
        }
        switch (func[j]) {
            case COUNT_STAR -> a.n += sign;
            case COUNT -> {
                for (int i = 0; i < nArgs[j]; i++) if (r.isNullAt(at + i)) return;
                a.n += sign;
            }
            case SUM, AVG -> {
                Object v = r.get(at);
                if (v == null) return;
                sum(a, v, sign);
                a.n += sign;
            }
            default -> {
                Object v = r.get(at);
                if (v == null) return;
                if (retracting) {
                    count(a.values, v, sign);
                } else if (a.v == null) {
                    a.v = v;
                } else {
                    int c = TopN.compareValues(v, a.v, textual[j]);  // a tie keeps the first
                    if (func[j] == MAX ? c > 0 : c < 0) a.v = v;
                }
            }
        }
    }

    /** One copy of {@code v} added to ({@code sign} 1) or taken from (-1) its count; none left: gone. */
    private static void count(Map<Object, long[]> counts, Object v, int sign) {
        long[] count = counts.get(v);
        long now = (count == null ? 0 : count[0]) + sign;
        if (now > 0) {
            if (count == null) counts.put(v, new long[] {now});
            else count[0] = now;
        } else if (count != null) {
            counts.remove(v);
        }
    }

    private static void sum(Acc a, Object v, int sign) {
        if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            a.d = sign > 0 ? a.d + x : a.d - x;
        } else if (v instanceof BigDecimal x) {
            BigDecimal total = a.big == null ? BigDecimal.ZERO : a.big;
            a.big = sign > 0 ? total.add(x, DIGITS) : total.subtract(x, DIGITS);
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

    /** Call {@code j}'s result, as its result type's Java class. */
    Object result(int j, Acc a) {
        return as(value(j, a), results[j]);
    }

    private Object value(int j, Acc a) {
        if (distinct[j]) {  // over the distinct values: their count, or their sum as a call's
            if (func[j] == COUNT) return (long) a.seen.size();
            Acc over = new Acc();
            for (Object v : a.seen.keySet()) sum(over, v, 1);
            over.n = a.seen.size();
            a = over;
        }
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

    // -- state: one struct per call -----------------------------------------------------------

    void load(Acc[] accs, Row s, int at) {
        for (int j = 0; j < n; j++) {
            Row a = s.getStruct(at + j);
            Acc acc = accs[j];
            if (distinct[j]) {
                for (Row e : a.<Row>getList(0)) acc.seen.put(e.get(0), new long[] {e.getLong(1)});
                continue;
            }
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
    }

    /** The accumulators' structs, into {@code v} from {@code at} on. */
    void save(Acc[] accs, Object[] v, int at) {
        for (int j = 0; j < n; j++) {
            Acc a = accs[j];
            if (distinct[j]) {
                v[at + j] = RowFactory.create(entries(a.seen));
                continue;
            }
            v[at + j] = switch (func[j]) {
                case COUNT_STAR, COUNT -> RowFactory.create(a.n);
                case SUM, AVG -> RowFactory.create(a.n, a.l, a.d, a.big == null ? null : a.big.toString());
                default -> {
                    if (!retracting) yield RowFactory.create(a.v);
                    yield RowFactory.create(entries(a.values));
                }
            };
        }
    }

    /** Values with their counts, in the map's order, as the state's array of (v, n) structs. */
    private static Object entries(Map<Object, long[]> counts) {
        List<Row> entries = new ArrayList<>(counts.size());
        for (Map.Entry<Object, long[]> e : counts.entrySet()) entries.add(RowFactory.create(e.getKey(), e.getValue()[0]));
        return scala.jdk.javaapi.CollectionConverters.asScala(entries).toSeq();
    }

    /** The accumulators' struct fields, named a0, a1, ... */
    List<StructField> schema() {
        List<StructField> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            out.add(DataTypes.createStructField("a" + j, distinct[j] ? counted(argTypes[j]) : accSchema(func[j], argTypes[j]), false));
        }
        return out;
    }

    private StructType accSchema(int func, DataType arg) {
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
                    return counted(arg);
                }
            }
        }
        return DataTypes.createStructType(f);
    }

    /** Every value with its count: MIN/MAX over updates, and the DISTINCT calls. */
    private static StructType counted(DataType arg) {
        StructType entry = DataTypes.createStructType(List.of(
            DataTypes.createStructField("v", arg, false), DataTypes.createStructField("n", DataTypes.LongType, false)));
        return DataTypes.createStructType(List.of(DataTypes.createStructField("values", DataTypes.createArrayType(entry, false), false)));
    }
}
