from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.redact import luhn_valid, redact


def test_provider_keys_are_masked() -> None:
    text = (
        "keys: sk-proj-abcdefghijklmnopqrstuvwx12 and sk-ant-api03-abcdefghijklmnopqrstuv "
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAIOSFODNN7EXAMPLE xoxb-1234567890-abcdefghij"
    )
    result = redact(text)
    assert "sk-proj" not in result.text and "ghp_" not in result.text and "AKIA" not in result.text
    assert "xoxb" not in result.text
    assert result.counts["api_key"] == 5


def test_jwt_and_private_key_block() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
    result = redact(f"token {jwt} and\n{pem}\nthanks")
    assert jwt not in result.text
    assert "MIIEpAIBAAKCAQEA" not in result.text
    assert result.text.endswith("thanks")
    assert result.counts == {"private_key": 1, "jwt": 1}


def test_card_numbers_need_a_valid_luhn_checksum() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    masked = redact("my card is 4111 1111 1111 1111 and order 4111111111111112")
    assert "4111 1111 1111 1111" not in masked.text
    assert "4111111111111112" in masked.text  # not a valid card number: left alone
    assert masked.counts == {"card_number": 1}


def test_national_ids_and_passwords() -> None:
    result = redact("SSN 123-45-6789, NI number AB 12 34 56 C, password=hunter22 and DB_SECRET: 'x y z'")
    assert "123-45-6789" not in result.text
    assert "AB 12 34 56 C" not in result.text
    assert "hunter22" not in result.text
    assert "x y z" not in result.text
    assert "password=[REDACTED:password]" in result.text


def test_my_password_is_phrase() -> None:
    assert "s3cret!" not in redact("my password is s3cret!").text


def test_ordinary_text_is_unchanged() -> None:
    text = "I moved to Lisbon in 2023 and call 555-0100 on Mondays; version 1.2.3 ships on 2024-05-07."
    assert redact(text).text == text


@given(st.text(max_size=300))
def test_redaction_never_raises_and_is_idempotent(text: str) -> None:
    once = redact(text).text
    assert redact(once).text == once
