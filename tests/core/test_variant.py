"""Variant files are refused with the key and the reason."""
import pytest

from engines.core.variant import Rule, VariantError, VariantLoader, parse_override

SCHEMA = {
    "players": Rule("int", min=2, max=4),
    "scoring.megamall_multiplier": Rule("int", min=1, max=10),
    "scoring.bonus": Rule("float", min=0),
    "rules.tie": Rule("str", choices=("key", "shared")),
    "cards.values": Rule("int_list", min=1, max=15, min_length=1),
    "tables.rows": Rule("int_table", min=0, length=3),
    "flags.on": Rule("bool"),
}

DEFAULT = """
# The full rule set
players = 4
[scoring]
megamall_multiplier = 2   # rulebook: Megamall doubles
bonus = 0.5
[rules]
tie = "key"
[cards]
values = [1, 2, 3]
[tables]
rows = [[0, 1, 2], [0, 2, 4]]
[flags]
on = true
"""


def consistency(values):
    if values["players"] == 2 and values["rules"]["tie"] == "shared":
        return [("rules.tie", "a 2-player game cannot share ties here")]
    return []


@pytest.fixture
def loader(tmp_path):
    (tmp_path / "default.toml").write_text(DEFAULT)
    (tmp_path / "triple.toml").write_text('# Megamalls triple\nextends = "default"\n[scoring]\nmegamall_multiplier = 3\n')
    (tmp_path / "triple_3p.toml").write_text('extends = "triple"\nplayers = 3\n')
    return VariantLoader("toy", tmp_path, SCHEMA, consistency)


def test_default_and_chain(loader):
    assert loader.load().get("scoring.megamall_multiplier") == 2
    v = loader.load("triple_3p")
    assert v.get("scoring.megamall_multiplier") == 3 and v.get("players") == 3
    assert v.get("cards.values") == [1, 2, 3]
    assert loader.names() == ["default", "triple", "triple_3p"]
    assert loader.describe()["triple"] == "Megamalls triple"


def test_digest_depends_on_rules_only(loader, tmp_path):
    assert loader.load().digest != loader.load("triple").digest
    same = tmp_path / "copy.toml"
    same.write_text("# same rules, other name\n[scoring]\nmegamall_multiplier = 3\n")
    assert loader.load(str(same)).digest == loader.load("triple").digest


def test_override(loader):
    v = loader.load(None, {"scoring.megamall_multiplier": 4})
    assert v.get("scoring.megamall_multiplier") == 4 and v.overrides == {"scoring.megamall_multiplier": 4}


@pytest.mark.parametrize(
    "text, key, reason",
    [
        ("[scoring]\nmegamall_multiplyer = 3\n", "scoring.megamall_multiplyer", "did you mean 'scoring.megamall_multiplier'"),
        ("[scoring]\nmegamall_multiplier = 0\n", "scoring.megamall_multiplier", "at least 1"),
        ("[scoring]\nmegamall_multiplier = 2.5\n", "scoring.megamall_multiplier", "integer"),
        ("players = true\n", "players", "integer"),
        ('[rules]\ntie = "coin"\n', "rules.tie", "one of key, shared"),
        ("[cards]\nvalues = []\n", "cards.values", "at least 1 items"),
        ("[cards]\nvalues = [1, 16]\n", "cards.values", "item 1: must be at most 15"),
        ("[tables]\nrows = [[0, 1]]\n", "tables.rows", "row 0: must have exactly 3 items"),
        ('players = 2\n[rules]\ntie = "shared"\n', "rules.tie", "cannot share"),
        ("players = [\n", "(file)", "not valid TOML"),
    ],
)
def test_bad_files_are_refused_with_key_and_reason(loader, tmp_path, text, key, reason):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    with pytest.raises(VariantError) as err:
        loader.load(str(bad))
    assert err.value.key == key
    assert reason in err.value.reason
    assert "bad.toml" in str(err.value) and key in str(err.value)


def test_bad_override_and_unknown_variant(loader):
    with pytest.raises(VariantError, match="override: key 'players': must be at most 4"):
        loader.load(None, {"players": 9})
    with pytest.raises(VariantError, match="no variant 'nope'"):
        loader.load("nope")


def test_parse_override():
    assert parse_override("scoring.megamall_multiplier=3") == ("scoring.megamall_multiplier", 3)
    assert parse_override("cards.values=[1,2]") == ("cards.values", [1, 2])
    assert parse_override("rules.tie=shared") == ("rules.tie", "shared")
    with pytest.raises(VariantError):
        parse_override("nonsense")
