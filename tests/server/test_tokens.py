"""Token handling, rule by rule: token tables and where they are read from, the bearer
token of call metadata, and the admin token (from the environment, reused from an
owner-only file, or issued), with the wording of each refusal."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from arena.server.auth import (
    ADMIN_TOKEN_VARIABLE,
    TOKENS_FILE_VARIABLE,
    TOKENS_VARIABLE,
    AdminTokenError,
    TokenError,
    TokenTable,
    admin_token_path,
    bearer_token,
    find_admin_token,
    issue_admin_token,
    sendable_token,
    tokens_from_file,
    tokens_from_json,
    tokens_from_lines,
)

# ------------------------------------------------------------------ token tables


def test_a_token_table_lists_its_bots_sorted() -> None:
    assert TokenTable({"zed": "t1", "amy": "t2"}).names == ["amy", "zed"]


def test_an_unknown_token_names_no_bot() -> None:
    table = TokenTable({"amy": "t2"})
    assert (table.bot_name("t2"), table.bot_name("t3"), table.bot_name("")) == ("amy", None,
                                                                                 None)


@pytest.mark.parametrize("tokens", [{"": "t"}, {"amy": ""}])
def test_an_empty_name_or_token_is_refused(tokens: dict[str, str]) -> None:
    with pytest.raises(TokenError, match="bot names and tokens must not be empty"):
        TokenTable(tokens)


def test_a_shared_token_names_both_bots() -> None:
    with pytest.raises(TokenError, match="bots 'amy' and 'zed' share a token"):
        TokenTable({"amy": "same", "zed": "same"})


def test_tokens_from_the_environment_take_the_json_over_the_file(tmp_path: Path) -> None:
    (tmp_path / "tokens").write_text("amy file-amy\nbob file-bob\n")
    table = TokenTable.from_env({TOKENS_FILE_VARIABLE: str(tmp_path / "tokens"),
                                 TOKENS_VARIABLE: '{"amy": "json-amy"}'})
    assert (table.bot_name("json-amy"), table.bot_name("file-amy"),
            table.bot_name("file-bob")) == ("amy", None, "bob")


def test_no_tokens_in_the_environment_let_no_bot_in() -> None:
    assert TokenTable.from_env({TOKENS_FILE_VARIABLE: "", TOKENS_VARIABLE: ""}).names == []


def test_a_token_table_reads_a_file_or_json(tmp_path: Path) -> None:
    (tmp_path / "tokens").write_text("  \n  {\"amy\": \"t\"}")
    assert TokenTable.from_file(tmp_path / "tokens").names == ["amy"]
    assert TokenTable.from_json('{"bob": "u"}').bot_name("u") == "bob"


def test_tokens_json_must_be_valid() -> None:
    with pytest.raises(TokenError, match="tokens are not valid JSON: Expecting"):
        tokens_from_json("{nope")


@pytest.mark.parametrize("text", ['["amy", "t"]', '{"amy": 3}', '{"amy": "t", "bob": null}'])
def test_tokens_json_must_be_an_object_of_strings(text: str) -> None:
    with pytest.raises(TokenError, match="tokens must be a JSON object of bot name → token "
                                         "strings"):
        tokens_from_json(text)


def test_tokens_lines_skip_blanks_and_comments() -> None:
    assert tokens_from_lines(["# bots", "", "amy t1  # hers", "   ", "bob t2"]) == {
        "amy": "t1", "bob": "t2"}


def test_a_tokens_line_of_three_words_is_refused_with_its_number() -> None:
    with pytest.raises(TokenError, match="line 2: expected 'NAME TOKEN', got 'bob t2 extra'"):
        tokens_from_lines(["amy t1", "bob t2 extra"])


def test_a_tokens_line_of_one_word_is_refused() -> None:
    with pytest.raises(TokenError, match="line 1: expected 'NAME TOKEN', got 'amy'"):
        tokens_from_lines(["amy"])


def test_a_missing_tokens_file_is_named_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(TokenError, match=f"{tmp_path / 'nope'}: No such file or directory"):
        tokens_from_file(tmp_path / "nope")


# ------------------------------------------------------------------ bearer tokens

def test_the_bearer_token_is_read_whatever_the_case_of_key_and_scheme() -> None:
    assert bearer_token([("Authorization", "BEARER  abc ")]) == "abc"


def test_no_metadata_holds_no_token() -> None:
    assert bearer_token(None) is None
    assert bearer_token([]) is None


def test_a_binary_or_other_entry_is_passed_over_for_the_bearer_token() -> None:
    assert bearer_token([("authorization", b"Bearer bin"), ("x-other", "Bearer no"),
                         ("authorization", "Bearer yes")]) == "yes"


@pytest.mark.parametrize("value", ["Bearer", "Bearer   ", "Basic abc", "abc"])
def test_an_authorization_without_a_bearer_token_holds_none(value: str) -> None:
    assert bearer_token([("authorization", value)]) is None


def test_the_first_bearer_token_is_taken() -> None:
    assert bearer_token([("authorization", "Bearer one"),
                         ("authorization", "Bearer two")]) == "one"


# ------------------------------------------------------------------ the admin token

def test_the_admin_token_file_is_beside_the_database(tmp_path: Path) -> None:
    assert admin_token_path(tmp_path / "arena.db") == tmp_path / "arena.admin-token"


def test_the_admin_token_from_the_environment_is_found_without_whitespace(tmp_path: Path,
                                                                          ) -> None:
    admin_token_path(tmp_path / "arena.db").write_text("from-file\n")
    assert find_admin_token(tmp_path / "arena.db", {ADMIN_TOKEN_VARIABLE: " env \n"}) == "env"


def test_a_blank_admin_token_in_the_environment_falls_back_to_the_file(tmp_path: Path) -> None:
    admin_token_path(tmp_path / "arena.db").write_text("  from-file\n")
    assert find_admin_token(tmp_path / "arena.db", {ADMIN_TOKEN_VARIABLE: "  "}) == "from-file"


def test_no_admin_token_anywhere_is_none(tmp_path: Path) -> None:
    assert find_admin_token(tmp_path / "arena.db", {}) is None


def test_an_empty_admin_token_file_is_none(tmp_path: Path) -> None:
    admin_token_path(tmp_path / "arena.db").write_text(" \n")
    assert find_admin_token(tmp_path / "arena.db", {}) is None


def test_an_admin_token_file_gRPC_cannot_send_is_refused_by_name(tmp_path: Path) -> None:
    path = admin_token_path(tmp_path / "arena.db")
    path.write_text("tök\n")
    with pytest.raises(AdminTokenError, match=f"the admin token in {path} holds a character "
                                              r"gRPC metadata cannot carry \(only printable "
                                              r"ASCII can go\)"):
        find_admin_token(tmp_path / "arena.db", {})


def test_an_admin_token_variable_gRPC_cannot_send_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(AdminTokenError, match=f"in {ADMIN_TOKEN_VARIABLE} holds a character"):
        find_admin_token(tmp_path / "arena.db", {ADMIN_TOKEN_VARIABLE: "a\tb"})


def test_issuing_takes_the_admin_token_from_the_environment_and_writes_no_file(
        tmp_path: Path) -> None:
    assert issue_admin_token(tmp_path / "arena.db", {ADMIN_TOKEN_VARIABLE: " env\n"}) == (
        "env", None)
    assert not admin_token_path(tmp_path / "arena.db").exists()


def test_issuing_refuses_an_environment_token_gRPC_cannot_send(tmp_path: Path) -> None:
    with pytest.raises(AdminTokenError, match=ADMIN_TOKEN_VARIABLE):
        issue_admin_token(tmp_path / "arena.db", {ADMIN_TOKEN_VARIABLE: "é"})


def test_issuing_writes_a_new_owner_only_token_file(tmp_path: Path) -> None:
    token, path = issue_admin_token(tmp_path / "arena.db", {})
    assert path == admin_token_path(tmp_path / "arena.db")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == token + "\n"
    assert len(token) == 32


def test_issuing_reuses_an_existing_owner_only_token_file(tmp_path: Path) -> None:
    first, path = issue_admin_token(tmp_path / "arena.db", {})
    assert issue_admin_token(tmp_path / "arena.db", {}) == (first, path)
    assert find_admin_token(tmp_path / "arena.db", {}) == first


def test_issuing_replaces_a_token_file_others_may_read(tmp_path: Path) -> None:
    path = admin_token_path(tmp_path / "arena.db")
    path.write_text("leaked\n")
    path.chmod(0o640)
    token, written = issue_admin_token(tmp_path / "arena.db", {})
    assert (written, token != "leaked") == (path, True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == token + "\n"


def test_issuing_replaces_an_empty_owner_only_token_file(tmp_path: Path) -> None:
    path = admin_token_path(tmp_path / "arena.db")
    path.write_text("\n")
    path.chmod(0o600)
    token, _ = issue_admin_token(tmp_path / "arena.db", {})
    assert token.strip() and path.read_text() == token + "\n"


def test_issuing_refuses_a_reused_token_gRPC_cannot_send(tmp_path: Path) -> None:
    path = admin_token_path(tmp_path / "arena.db")
    path.write_text("bad\x7f\n")
    path.chmod(0o600)
    with pytest.raises(AdminTokenError, match=str(path)):
        issue_admin_token(tmp_path / "arena.db", {})


@pytest.mark.parametrize("token", ["a b", "~!", " x ", "\tx\n"])
def test_printable_ascii_is_sendable_without_surrounding_whitespace(token: str) -> None:
    assert sendable_token(token, "here") == token.strip()


@pytest.mark.parametrize("token", ["a\x1fb", "a\x7fb", "aéb"])
def test_anything_else_is_not_sendable_and_the_refusal_names_its_kind(token: str) -> None:
    with pytest.raises(AdminTokenError, match="^a session token in here holds a character"):
        sendable_token(token, "here", kind="a session token")


@pytest.mark.parametrize("mode", [0o601, 0o610, 0o604])
def test_issuing_replaces_a_token_file_with_any_bit_for_others(tmp_path: Path, mode: int) -> None:
    path = admin_token_path(tmp_path / "arena.db")
    path.write_text("old\n")
    path.chmod(mode)
    token, _ = issue_admin_token(tmp_path / "arena.db", {})
    assert token != "old" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_new_token_file_is_owner_only_from_the_moment_it_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The mode is set twice: at creation and after. Without the second, the first holds.
    monkeypatch.setattr(os, "fchmod", lambda descriptor, mode: None)
    old_umask = os.umask(0)
    try:
        _, path = issue_admin_token(tmp_path / "arena.db", {})
    finally:
        os.umask(old_umask)
    assert path is not None and stat.S_IMODE(path.stat().st_mode) == 0o600
