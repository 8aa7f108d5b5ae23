"""A JVM user function's SQL signature, read from its class file in the jar of ``USING JAR``,
without a JVM: the class implements one of Spark's ``org.apache.spark.sql.api.java.UDF1`` ..
``UDF22`` interfaces, whose type arguments (kept in the class file's generic ``Signature``
attribute) are its parameter and result types."""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

from planner.udf.loader import Signature, UdfError

SPARK_UDF = "org/apache/spark/sql/api/java/UDF"

JAVA_TYPES = {
    "java/lang/String": "STRING",
    "java/lang/Long": "BIGINT",
    "java/lang/Integer": "INT",
    "java/lang/Short": "SMALLINT",
    "java/lang/Byte": "TINYINT",
    "java/lang/Double": "DOUBLE",
    "java/lang/Float": "FLOAT",
    "java/lang/Boolean": "BOOLEAN",
    "java/math/BigDecimal": "DECIMAL(38, 18)",
    "java/sql/Date": "DATE",
    "java/time/LocalDate": "DATE",
    "java/sql/Timestamp": "TIMESTAMP_LTZ(3)",
    "java/time/Instant": "TIMESTAMP_LTZ(3)",
    "java/time/LocalDateTime": "TIMESTAMP(3)",
}

# bytes each constant-pool entry takes after its tag (Utf8 is read by its length)
_CP_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}


def find_jar(resource: str, dirs: tuple[str, ...]) -> Path:
    p = Path(resource).expanduser()
    for candidate in [p] if p.is_absolute() else [Path(d) / p for d in dirs]:
        if candidate.is_file():
            return candidate.resolve()
    raise UdfError(f"jar '{resource}' not found", "give its path relative to the .sql file, or an absolute one")


def class_signature(data: bytes) -> str | None:
    """The generic signature of a class file's class (None when it has none)."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise UdfError("not a Java class file")
    (count,) = struct.unpack_from(">H", data, 8)
    utf8: dict[int, str] = {}
    pos, i = 10, 1
    while i < count:
        tag = data[pos]
        if tag == 1:
            (n,) = struct.unpack_from(">H", data, pos + 1)
            utf8[i] = data[pos + 3 : pos + 3 + n].decode("utf-8", "replace")
            pos += 3 + n
        else:
            pos += 1 + _CP_SIZES[tag]
        i += 2 if tag in (5, 6) else 1
    pos += 6  # access flags, this class, super class
    (interfaces,) = struct.unpack_from(">H", data, pos)
    pos += 2 + 2 * interfaces
    for _ in range(2):  # fields, then methods: skip each with its attributes
        (members,) = struct.unpack_from(">H", data, pos)
        pos += 2
        for _ in range(members):
            (attrs,) = struct.unpack_from(">H", data, pos + 6)
            pos += 8
            for _ in range(attrs):
                (length,) = struct.unpack_from(">I", data, pos + 2)
                pos += 6 + length
    (attrs,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(attrs):
        name_index, length = struct.unpack_from(">HI", data, pos)
        if utf8.get(name_index) == "Signature":
            (sig_index,) = struct.unpack_from(">H", data, pos + 6)
            return utf8.get(sig_index)
        pos += 6 + length
    return None


def _type_arguments(text: str) -> list[str]:
    """``Ljava/lang/String;[BLjava/util/List<Ljava/lang/Long;>;`` -> its three type signatures."""
    out, i = [], 0
    while i < len(text):
        start = i
        while text[i] == "[":
            i += 1
        if text[i] == "L":
            depth = 0
            while True:
                ch = text[i]
                depth += ch == "<"
                depth -= ch == ">"
                i += 1
                if ch == ";" and depth == 0:
                    break
        else:
            i += 1
        out.append(text[start:i])
    return out


def _udf_type_arguments(generic: str) -> str | None:
    """The type arguments of the UDFn interface in a class's generic signature."""
    m = re.search(re.escape("L" + SPARK_UDF) + r"\d+<", generic)
    if m is None:
        return None
    depth, i = 1, m.end()
    while i < len(generic) and depth:
        depth += (generic[i] == "<") - (generic[i] == ">")
        i += 1
    return generic[m.end() : i - 1]


def _sql_type(java: str, where: str) -> str:
    if java == "[B":
        return "BYTES"
    name = java[1:-1].split("<", 1)[0] if java.startswith("L") else java
    found = JAVA_TYPES.get(name)
    if found is None:
        raise UdfError(f"{where}: the Java type {name.replace('/', '.')} has no SQL type sqlengine maps")
    return found


def java_signature(class_name: str, jars: list[Path]) -> Signature:
    """The signature of ``class_name``, read from the first of ``jars`` that holds it."""
    where = f"'{class_name}'"
    entry = class_name.replace(".", "/") + ".class"
    data = None
    for jar in jars:
        try:
            with zipfile.ZipFile(jar) as z:
                if entry in z.namelist():
                    data, source = z.read(entry), jar
                    break
        except (OSError, zipfile.BadZipFile) as err:
            raise UdfError(f"cannot read jar '{jar}': {err}") from None
    if data is None:
        raise UdfError(f"no class {class_name} in {', '.join(repr(str(j)) for j in jars)}")
    try:
        generic = class_signature(data)
    except (struct.error, KeyError, IndexError):
        raise UdfError(f"cannot read the class file of {class_name} in '{source}'") from None
    inside = _udf_type_arguments(generic or "")
    if inside is None:
        raise UdfError(
            f"{where} does not implement one of Spark's org.apache.spark.sql.api.java.UDF1..UDF22 interfaces",
            "implement UDF1<In, Out> (or UDF2..UDF22) with boxed types (String, Long, Double, ...)",
        )
    types = [_sql_type(a, where) for a in _type_arguments(inside)]
    return Signature(
        target=class_name, params=tuple(types[:-1]), result=types[-1], required=len(types) - 1, varargs=False,
        table=False, deterministic=True, vectorized=False, module_file=str(source),
    )
