import pytest

from catalog.options import CONNECTORS
from sqlengine.connectors import ConnectorError, connector_names, get_connector


def test_every_described_connector_is_registered_and_named_alike():
    assert connector_names() == sorted(CONNECTORS)
    for name in CONNECTORS:
        assert get_connector(name).name == name


def test_unknown_connector_suggests_a_close_name():
    with pytest.raises(ConnectorError) as info:
        get_connector("filesytem")
    assert str(info.value).startswith("Unknown connector 'filesytem'. Did you mean 'filesystem'?")
    assert info.value.option == "connector"


def test_source_and_sink_flags_match_the_implementations():
    from sqlengine.connectors.base import Connector

    for name, spec in CONNECTORS.items():
        cls = type(get_connector(name))
        assert (cls.sink is not Connector.sink) == spec.sink, name


def test_every_option_is_documented():
    from pathlib import Path

    from catalog.options import FORMATS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "connectors.md").read_text()
    for name, spec in CONNECTORS.items():
        assert f"## {name}" in doc
        for opt in spec.options:
            assert f"`{opt.key}`" in doc, opt.key
    for opts in FORMATS.values():
        for opt in opts:
            assert f"`{opt.key}`" in doc, opt.key
