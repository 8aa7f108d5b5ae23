"""Offsets Spark's Kafka source cannot look up by itself: a topic's partitions, a consumer
group's committed offsets, the first offset at a time. Flink's 'group-offsets' and
'specific-offsets' start modes and its bounded modes need them; Spark wants starting offsets
for every partition, as JSON.

The Kafka client classes live in the session's jar class loader (they arrive with ADD JAR), not
on the class path Py4J resolves names on, so they are reached through reflection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlengine.connectors.kafka_jars import jar_loader, jvm_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Offsets = dict[tuple[str, int], int]  # (topic, partition) -> offset


@dataclass
class KafkaAdmin:
    """A Kafka admin client in the driver's JVM; close it after use."""

    spark: SparkSession
    properties: dict[str, str]

    def __post_init__(self) -> None:
        jvm = self._jvm = jvm_of(self.spark)
        self._loader = jar_loader(self.spark)
        props = jvm.java.util.Properties()
        for key, value in self.properties.items():
            props.setProperty(key, value)
        props.setProperty("request.timeout.ms", self.properties.get("request.timeout.ms", "15000"))
        props.setProperty("default.api.timeout.ms", self.properties.get("default.api.timeout.ms", "15000"))
        admin = self._class("org.apache.kafka.clients.admin.Admin")
        self._admin = self._static(admin, "create", [jvm.java.util.Properties], [props])

    def _class(self, name: str) -> Any:
        return self._jvm.java.lang.Class.forName(name, True, self._loader)

    def _array(self, cls: Any, items: list[Any]) -> Any:
        gateway = self.spark.sparkContext._gateway
        assert gateway is not None, "a classic session has a gateway"
        arr = gateway.new_array(cls, len(items))
        for i, item in enumerate(items):
            arr[i] = item
        return arr

    def _static(self, cls: Any, method: str, types: list[Any], args: list[Any]) -> Any:
        jclass = self._jvm.java.lang.Class
        found = cls.getMethod(method, self._array(jclass, [self._klass(t) for t in types]))
        return found.invoke(None, self._array(self._jvm.java.lang.Object, args))

    def _klass(self, t: Any) -> Any:
        """A java.lang.Class from a Py4J JavaClass, a class object, or a primitive's name."""
        if isinstance(t, str):
            return {"long": self._jvm.java.lang.Long.TYPE, "int": self._jvm.java.lang.Integer.TYPE}[t]
        return t._java_lang_class if hasattr(t, "_java_lang_class") else t

    def _partition(self, topic: str, partition: int) -> Any:
        cls = self._class("org.apache.kafka.common.TopicPartition")
        ctor = cls.getConstructor(self._array(self._jvm.java.lang.Class, [self._jvm.java.lang.String._java_lang_class, self._klass("int")]))
        return ctor.newInstance(self._array(self._jvm.java.lang.Object, [topic, self._jvm.java.lang.Integer(partition)]))

    def topics(self, names: Iterable[str] = (), pattern: str | None = None) -> list[str]:
        if pattern is None:
            return list(names)
        every = self._admin.listTopics().names().get()
        regex = re.compile(pattern)
        return sorted(t for t in every if regex.fullmatch(t))

    def partitions(self, topics: list[str]) -> list[tuple[str, int]]:
        described = self._admin.describeTopics(self._list(topics)).allTopicNames().get()
        out = []
        for topic in topics:
            for info in described.get(topic).partitions():
                out.append((topic, int(info.partition())))
        return out

    def committed(self, group: str) -> Offsets:
        found = self._admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
        return {(tp.topic(), int(tp.partition())): int(meta.offset()) for tp, meta in found.items() if meta is not None}

    def at_time(self, partitions: list[tuple[str, int]], millis: int) -> Offsets:
        """Per partition, the first offset whose timestamp is at or after ``millis``; the end
        offset where there is none."""
        spec_cls = self._class("org.apache.kafka.clients.admin.OffsetSpec")
        spec = self._static(spec_cls, "forTimestamp", ["long"], [self._jvm.java.lang.Long(millis)])
        latest = self._static(spec_cls, "latest", [], [])
        wanted = self._jvm.java.util.HashMap()
        ends = self._jvm.java.util.HashMap()
        keys = {p: self._partition(*p) for p in partitions}
        for tp in keys.values():
            wanted.put(tp, spec)
            ends.put(tp, latest)
        at = self._admin.listOffsets(wanted).all().get()
        end = self._admin.listOffsets(ends).all().get()
        out = {}
        for p, tp in keys.items():
            offset = int(at.get(tp).offset())
            out[p] = offset if offset >= 0 else int(end.get(tp).offset())
        return out

    def _list(self, items: list[str]) -> Any:
        out = self._jvm.java.util.ArrayList()
        for item in items:
            out.add(item)
        return out

    def close(self) -> None:
        try:
            self._admin.close()
        except Exception:  # already gone
            pass


def offsets_json(offsets: Offsets) -> str:
    """Spark's startingOffsets JSON: {"topic": {"0": 42}} (-2 earliest, -1 latest)."""
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return json.dumps(out)
