from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.redact import luhn_valid, redact, redact_all


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


def test_secrets_said_in_words() -> None:
    cases = {
        "the root password is swordfish77": "swordfish77",
        "The password for the db is hunter2.": "hunter2",
        "my pin is 4821": "4821",
        "PIN: 9911 please": "9911",
        "api key: abcd1234efgh": "abcd1234efgh",
        'passphrase is "correct horse battery"': "correct horse battery",
        "the staging token is now Xy9-ab_77QQ": "Xy9-ab_77QQ",
    }
    for text, secret in cases.items():
        assert secret not in redact(text).text, text


def test_ordinary_sentences_about_passwords_are_kept() -> None:
    for text in (
        "the token is expired",
        "The password is stored in the vault",
        "the pin is loose",
        "the secret is patience",
        "never print the password",
        "I forgot my password.",
    ):
        assert redact(text).text == text


def test_email_addresses_and_url_passwords() -> None:
    result = redact("mail carol.secret@example.org or use postgres://admin:s3cretpw@db.local/x")
    assert "carol.secret@example.org" not in result.text and "s3cretpw" not in result.text
    assert "postgres://admin:[REDACTED:password]@db.local/x" in result.text
    assert result.counts == {"email": 1, "password": 1}
    assert redact("git clone git@github.com:org/repo.git").text == "git clone git@github.com:org/repo.git"


SECRETISH = st.sampled_from(
    ["sk-", "ghp_", "AKIA", "eyJ", "@", "=", ":", "my pin is ", "password is ", "Bearer ", "://a:", "4012 8888 ", "-"]
)


@given(
    st.lists(st.one_of(st.text(max_size=12), SECRETISH, st.text("0123456789 -@.:=abcXYZ", max_size=20)), max_size=12)
)
def test_the_quick_checks_never_skip_a_secret(parts: list[str]) -> None:
    text = "".join(parts)
    assert redact(text) == redact_all(text, guarded=False)


@given(st.sampled_from(["sk-abcdefghijklmnopqrstuv", "AKIAABCDEFGHIJKLMNOP", "a@b.io", "token=x", "4012888888881881"]))
def test_the_quick_precheck_lets_every_kind_through(secret: str) -> None:
    assert redact(f"see {secret} here").counts
