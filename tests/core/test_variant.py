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
    # the message blames the --set as typed (it used to say "command line override")
    with pytest.raises(VariantError, match=r"^--set players=9: key 'players': must be at most 4"):
        loader.load(None, {"players": 9})
    with pytest.raises(VariantError, match="no variant 'nope'"):
        loader.load("nope")


def test_parse_override():
    assert parse_override("scoring.megamall_multiplier=3") == ("scoring.megamall_multiplier", 3)
    assert parse_override("cards.values=[1,2]") == ("cards.values", [1, 2])
    assert parse_override("rules.tie=shared") == ("rules.tie", "shared")
    with pytest.raises(VariantError):
        parse_override("nonsense")


# --- issue 9: inputs that used to be accepted or blamed on the wrong file -------------------

def test_set_error_blames_the_set_not_default_toml(loader):
    # an unknown key typed with --set names the --set, not default.toml
    with pytest.raises(VariantError) as err:
        loader.load(None, {"scoring.x": 3})
    assert str(err.value).startswith("--set scoring.x=3: key 'scoring.x': unknown key"), err.value
    assert "default.toml" not in str(err.value)
    # a rule the --set did not touch but broke (consistency) names the file AND the --set
    with pytest.raises(VariantError) as err:
        loader.load(None, {"players": 2, "rules.tie": "shared"})
    assert "--set rules.tie=\"shared\"" in str(err.value)



def test_consistency_error_caused_by_a_set_names_file_and_set(loader, tmp_path):
    shared = tmp_path / "shared.toml"
    shared.write_text('[rules]\ntie = "shared"\n')
    # players=2 is valid alone; it makes the file's tie rule unplayable: both are named
    with pytest.raises(VariantError) as err:
        loader.load(str(shared), {"players": 2})
    assert err.value.key == "rules.tie"
    assert str(err.value).startswith(f"{shared} with --set players=2: key 'rules.tie'"), err.value


def test_set_with_a_table_value_is_checked_key_by_key(loader):
    with pytest.raises(VariantError) as err:
        loader.load(None, {"scoring": {"megamall_multiplier": 0}})
    assert err.value.key == "scoring.megamall_multiplier" and "--set scoring.megamall_multiplier=0" in str(err.value)


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_refused(loader, raw):
    # nan compares False with every bound, so a float rule with min=0 used to accept it
    with pytest.raises(VariantError, match="finite"):
        loader.load(None, dict([parse_override(f"scoring.bonus={raw}")]))


def test_parse_override_error_names_the_set():
    with pytest.raises(VariantError, match=r"^--set nonsense: "):
        parse_override("nonsense")
    with pytest.raises(VariantError, match="key=value"):
        parse_override("=3")


def test_extends_is_looked_up_from_the_variant_files_folder(loader, tmp_path, monkeypatch):
    mine = tmp_path / "designs"
    mine.mkdir()
    (mine / "base.toml").write_text('extends = "default"\n[scoring]\nmegamall_multiplier = 5\n')
    (mine / "child.toml").write_text('extends = "base.toml"\nplayers = 3\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # a decoy base.toml in the current directory must not be the one read
    (elsewhere / "base.toml").write_text("[scoring]\nmegamall_multiplier = 7\n")
    monkeypatch.chdir(elsewhere)
    v = loader.load(str(mine / "child.toml"))
    assert v.get("scoring.megamall_multiplier") == 5 and v.get("players") == 3


def test_extends_is_confined_unless_the_path_is_absolute(tmp_path):
    game_dir = tmp_path / "game" / "variants"
    game_dir.mkdir(parents=True)
    (game_dir / "default.toml").write_text(DEFAULT)
    loader = VariantLoader("toy", game_dir, SCHEMA, consistency)
    mine = tmp_path / "a" / "designs"
    mine.mkdir(parents=True)
    outside = tmp_path / "a" / "outside.toml"
    outside.write_text("[scoring]\nmegamall_multiplier = 6\n")
    (mine / "escape.toml").write_text('extends = "../outside.toml"\n')
    with pytest.raises(VariantError) as err:
        loader.load(str(mine / "escape.toml"))
    assert err.value.key == "extends" and "outside" in err.value.reason and "absolute path" in err.value.reason
    # an absolute path is explicit: allowed
    (mine / "explicit.toml").write_text(f'extends = "{outside}"\n')
    assert loader.load(str(mine / "explicit.toml")).get("scoring.megamall_multiplier") == 6
    # extends must name a TOML variant file, not any file
    (mine / "passwd.toml").write_text('extends = "/etc/passwd"\n')
    with pytest.raises(VariantError, match="ends in .toml"):
        loader.load(str(mine / "passwd.toml"))


def test_variant_path_must_be_a_toml_file(loader):
    with pytest.raises(VariantError, match="ends in .toml"):
        loader.load("/etc/passwd")


@pytest.mark.parametrize(
    "raw, safe",
    [
        ("megamall_triple", "megamall_triple"),
        ("my variant (v2)", "my_variant_v2"),
        ("../../etc", "etc"),
        ("-rf", "rf"),
        (".hidden", "hidden"),
        ("a/b\\c", "a_b_c"),
        ("$(reboot);x", "reboot_x"),
        ("", "variant"),
        ("...", "variant"),
        ("é" * 100, "variant"),
        ("x" * 200, "x" * 60),
    ],
)
def test_safe_name(raw, safe):
    from engines.core.variant import safe_name

    assert safe_name(raw) == safe


def test_loaded_variant_name_is_folder_safe(loader, tmp_path):
    odd = tmp_path / "my rules; rm -rf ~.toml"
    odd.write_text("players = 3\n")
    assert loader.load(str(odd)).name == "my_rules_rm_-rf"


def test_comments_are_read_per_key(loader):
    comments = loader.comments()
    assert comments["scoring.megamall_multiplier"] == "rulebook: Megamall doubles"
    assert "flags.on" not in comments  # no comment on that line nor directly above it


def test_read_comments_blocks_headers_and_hashes_in_strings():
    from engines.core.variant import read_comments

    text = (
        '# file comment\n\n'
        'a = 1   # one\n'
        '[t]\n'
        '# above b\n'
        '# and more\n'
        'b = "x # not a comment"   # two\n'
        '[roof.1]\n'
        'name = "Odds"\n'
        'table = [0, 1]   # three\n'
    )
    assert read_comments(text) == {"a": "one", "t.b": "above b and more two", "roof.1.table": "three"}


@pytest.mark.parametrize("game_id", ["skyline_3000", "cityline"])
def test_default_variant_comments_describe_every_rule_and_point_nowhere_else(game_id):
    # the default file is the user's description of every rule choice: each key has its
    # own comment, and no comment sends the reader to a document users do not have
    from engines.registry import get_game

    loader = get_game(game_id).variants
    comments = loader.comments()
    assert sorted(k for k in loader.schema if not comments.get(k)) == []
    for path in loader.variants_dir.glob("*.toml"):
        text = path.read_text()
        for word in ("GAPS", "shared/"):
            assert word not in text, f"{path.name} mentions {word}"
