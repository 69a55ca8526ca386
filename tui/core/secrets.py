"""Credentials in a run's content: found, reported by kind and last four characters, redacted.

The patterns are detect-secrets' (Yelp's detector library: its regex-based plugins for AWS,
Azure storage, GitHub, GitLab, Slack, Stripe, OpenAI, JWTs, private keys, basic-auth connection
strings and more). Its plugins are called directly (``analyze_string``), so its network
verification never runs: nothing found is ever sent anywhere. Left out are its keyword and
high-entropy plugins, which flag code and every base64 value (a thinking signature would be one),
its public-IP plugin (an address is no credential), and its keyword-led plugins for IBM Cloud,
Cloudant, SoftLayer and Artifactory (each a name followed by any word: noisy on code, and together
four times slower than all the others). Added, as plugins of the same library, the
kinds it lacks: Anthropic keys, Google API keys, OpenAI project keys and bearer tokens. The library
is imported only once one of those patterns matches somewhere (``could_match``: a copy of them, for
the release they were taken from; importing its plugins imports ``requests``, 0.1-0.2 s of CPU).

Only text is scanned (``tui.core.content``): signatures, redacted thinking, encrypted content
and ids are opaque values a replay needs byte-exact; they are never scanned and never redacted.
``secret_findings`` reports ``secret_in_content`` warnings; ``redact_text`` and ``redact_value``
replace each secret with ``⟨redacted: KIND⟩``. The secret itself is never put in a finding,
a message or an error: only its kind and its last four characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tui.core.blocks import TOOL_USE_TYPES
from tui.core.content import NOTHING, OPAQUE_KEYS, text_places
from tui.core.grammar.findings import Finding
from tui.core.grammar.rules import WARNING
from tui.core.run import Run

RULE = "secret_in_content"
#: detect-secrets plugins not used (see the module's text).
_LEFT_OUT = {"KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector",
             "CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector",
             "ArtifactoryDetector"}
#: A token's characters: a value a plugin reports (a prefix group, a JWT cut short) is widened over them.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-.+/=~]*")
_PEM = re.compile(r"-----BEGIN[A-Z ]*PRIVATE KEY( BLOCK)?-----.*?(-----END[A-Z ]*PRIVATE KEY( BLOCK)?-----|\Z)",
                  re.DOTALL)
#: What a line must hold for any plugin to match in it: every pattern used needs a run of 16 or more
#: token characters, a private key's header or a URL's ``://`` (all of them are line-local, as
#: detect-secrets scans line by line). Prose and short JSON rows have none, so the plugins run on the
#: few lines that do. The runs are found on the UTF-8 bytes with every token byte translated to ``a``
#: (newlines kept, everything else a space): ten times faster than a regex over the text.
_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~")
_MASK = bytes(0x61 if b in _TOKEN_BYTES else 0x0A if b == 0x0A else 0x20 for b in range(256))
_RUN = b"a" * 16


#: How an opaque value begins in a run's JSON, as orjson writes a block (in its stored key order): a
#: tool_use's id, a tool_result's tool_use_id, redacted thinking's data, media data. Its token run is
#: skipped; any other (a signature, an input field named ``id``) is scanned, at worst for nothing.
_OPAQUE_OPENINGS = (*(b'"%s","id":"' % kind.encode() for kind in TOOL_USE_TYPES), b'"tool_result","tool_use_id":"',
                    b'"redacted_thinking","data":"')
_MEDIA_DATA = b'","data":"'
_MEDIA = b'"media_type":"'
_LONGEST = 8192  # a token run longer than this (a 2.5 MB dump, base64 media) is scanned at its two ends only
_CONTEXT = 80  # bytes before a token run that a pattern may need (``Bearer ``, ``aws_secret_key = "``)


def may_hold_secrets(data: bytes | bytearray) -> bool:
    """False when a whole run's JSON (``data``, as orjson writes it: no raw newline) holds no secret in
    any text: then no walk of the run is needed. The plugins run on short windows around each run of
    16 token characters that is not an opaque value (an id, a signature, media data), each private-key
    header and each ``://``; True when any of them finds something (the walk then says where)."""
    mask = data.translate(_MASK)
    windows = []
    at = mask.find(_RUN)
    while at != -1:
        end = mask.find(b" ", at)
        end = len(mask) if end == -1 else end
        start = max(0, at - 64)  # (the 64 bytes before, looked at in place: no slice per run)
        if not (data.startswith(b'"', end) and (data.endswith(_OPAQUE_OPENINGS, start, at) or (
                data.endswith(_MEDIA_DATA, start, at) and data.find(_MEDIA, start, at) != -1))):
            if end - at > _LONGEST:  # no credential is this long: its two ends, where one could be glued on
                windows += [data[max(0, at - _CONTEXT):at + _LONGEST // 2], data[end - _LONGEST // 2:end + 2]]
            else:
                windows.append(data[max(0, at - _CONTEXT):end + 2])
        at = mask.find(_RUN, end)
    # every place of each needle, needle by needle (the order three ``find`` loops gave): one scan, not three
    for _, at, _ in sorted(_needles().find_matches_as_indexes(data, overlapping=True)):
        windows.append(data[max(0, at - _CONTEXT):at + _CONTEXT])
    if not windows:
        return False
    sample = b"\n".join(windows).decode("utf-8", "replace")
    return could_match(sample) and any(True for plugin in detectors() for _ in plugin.analyze_string(sample))


#: What ``may_hold_secrets`` looks around wherever it occurs: a private key's header, a PuTTY key, a URL.
_NEEDLES = (b"PRIVATE KEY", b"PuTTY", b"://")


@lru_cache(maxsize=1)
def _needles() -> Any:
    """``_NEEDLES`` as one automaton: a whole run's JSON scanned once for all three (three ``bytes.find``
    scans of a 100 MB run's JSON took 0.145 s of CPU, this one 0.01 s)."""
    from ahocorasick_rs import BytesAhoCorasick

    return BytesAhoCorasick(list(_NEEDLES))


def candidate_lines(text: str) -> str:
    """The lines of ``text`` a plugin could match in, joined (``""`` when there are none)."""
    mask = text.encode("utf-8", "surrogatepass").translate(_MASK)
    if _RUN not in mask and "PRIVATE KEY" not in text and "://" not in text:
        return ""
    if "\n" not in text:
        return text
    return "\n".join(line for line, bits in zip(text.split("\n"), mask.split(b"\n"))
                     if _RUN in bits or "PRIVATE KEY" in line or "://" in line)


@dataclass(frozen=True)
class Secret:
    """A secret found in one string: its kind and where (``start``, ``end``); ``last4`` is all we show of it."""

    kind: str
    start: int
    end: int
    last4: str


#: The patterns of the plugins added to the library's (``_extra_plugins``), by kind.
_ANTHROPIC = r"sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_\-]{20,}"
_GOOGLE = r"AIza[0-9A-Za-z_\-]{35}"
_OPENAI_PROJECT = r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"
_BEARER = r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"

#: The release of detect-secrets whose plugins' patterns ``_LIBRARY_PATTERNS`` are, as ``detectors()`` uses
#: them (``tests/core/test_content_check.py`` holds the two equal, pattern for pattern, with their flags).
_PATTERNS_OF = "1.5.0"
#: The denylist of each library plugin ``detectors()`` uses: ``(pattern, flags)``.
_LIBRARY_PATTERNS = (
    ('(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}', 0),  # AWSKeyDetector
    ('aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\\\'\\"]([0-9a-zA-Z/+]{40})[\\\'\\"]', re.IGNORECASE),  # AWSKeyDetector
    ('AccountKey=[a-zA-Z0-9+\\/=]{88}', 0),  # AzureStorageKeyDetector
    ('[MNO][a-zA-Z\\d_-]{23,25}\\.[a-zA-Z\\d_-]{6}\\.[a-zA-Z\\d_-]{27}', 0),  # DiscordBotTokenDetector
    ('(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}', 0),  # GitHubTokenDetector
    ('(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\\-]{20,50}(?!\\w)', 0),  # GitLabTokenDetector
    ('GR1348941[A-Za-z0-9_\\-]{20,50}(?!\\w)', 0),  # GitLabTokenDetector
    ('glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\\-]{20,50}(?!\\w)', 0),  # GitLabTokenDetector
    ('glimt-[A-Za-z0-9_\\-]{25}(?!\\w)', 0),  # GitLabTokenDetector
    ('glptt-[A-Za-z0-9_\\-]{40}(?!\\w)', 0),  # GitLabTokenDetector
    ('glagent-[A-Za-z0-9_\\-]{50,1024}(?!\\w)', 0),  # GitLabTokenDetector
    ('gloas-[A-Za-z0-9_\\-]{64}(?!\\w)', 0),  # GitLabTokenDetector
    ('[0-9a-z]{32}-us[0-9]{1,2}', 0),  # MailchimpDetector
    ('\\/\\/.+\\/:_authToken=\\s*((npm_.+)|([A-Fa-f0-9-]{36})).*', 0),  # NpmDetector
    ('sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}', 0),  # OpenAIDetector
    ('BEGIN DSA PRIVATE KEY', 0),  # PrivateKeyDetector
    ('BEGIN EC PRIVATE KEY', 0),  # PrivateKeyDetector
    ('BEGIN OPENSSH PRIVATE KEY', 0),  # PrivateKeyDetector
    ('BEGIN PGP PRIVATE KEY BLOCK', 0),  # PrivateKeyDetector
    ('BEGIN PRIVATE KEY', 0),  # PrivateKeyDetector
    ('BEGIN RSA PRIVATE KEY', 0),  # PrivateKeyDetector
    ('BEGIN SSH2 ENCRYPTED PRIVATE KEY', 0),  # PrivateKeyDetector
    ('PuTTY-User-Key-File-2', 0),  # PrivateKeyDetector
    ('pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}', 0),  # PypiTokenDetector
    ('pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}', 0),  # PypiTokenDetector
    ('SG\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9_-]{43}', 0),  # SendGridDetector
    ('xox(?:a|b|p|o|s|r)-(?:\\d+-)+[a-z0-9]+', re.IGNORECASE),  # SlackDetector
    ('https://hooks\\.slack\\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+', re.IGNORECASE | re.VERBOSE),  # SlackDetector
    ('sq0csp-[0-9A-Za-z\\\\\\-_]{43}', 0),  # SquareOAuthDetector
    ('(?:r|s)k_live_[0-9a-zA-Z]{24}', 0),  # StripeDetector
    ('\\d{8,10}:[0-9A-Za-z_-]{35}', 0),  # TelegramBotTokenDetector
    ('AC[a-z0-9]{32}', 0),  # TwilioKeyDetector
    ('SK[a-z0-9]{32}', 0),  # TwilioKeyDetector
    ("://[^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+:([^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+)@", 0),  # BasicAuthDetector
    ('eyJ[A-Za-z0-9-_=]+\\.[A-Za-z0-9-_=]+\\.?[A-Za-z0-9-_.+/=]*?', 0),  # JwtTokenDetector
)


def _installed_release() -> str | None:
    """The installed detect-secrets' version, read from its ``__version__.py`` without importing the package
    (its ``__init__`` imports every plugin, and they ``requests``); None when it cannot be read."""
    try:
        from importlib.util import find_spec

        spec = find_spec("detect_secrets")
        if spec is None or not spec.submodule_search_locations:
            return None
        from pathlib import Path

        text = (Path(list(spec.submodule_search_locations)[0]) / "__version__.py").read_text("utf-8")
    except (OSError, ImportError, ValueError, UnicodeDecodeError):
        return None
    found = re.search(r"""^VERSION\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)
    return found.group(1) if found else None


@lru_cache(maxsize=1)
def pre_check() -> tuple[re.Pattern, ...] | None:
    """Every pattern of every plugin ``detectors()`` holds, compiled without importing detect-secrets (its
    plugins import ``requests``: 0.1-0.23 s of CPU before the first scan), when the installed release is
    the one ``_LIBRARY_PATTERNS`` was copied from; None for any other release (then the plugins are asked)."""
    if _installed_release() != _PATTERNS_OF:
        return None
    return tuple(re.compile(pattern, flags) for pattern, flags in
                 (*_LIBRARY_PATTERNS, (_ANTHROPIC, 0), (_GOOGLE, 0), (_OPENAI_PROJECT, 0), (_BEARER, 0)))


def could_match(sample: str) -> bool:
    """False when no plugin's pattern matches anywhere in ``sample``: then no plugin finds anything in it
    (each is a ``RegexBasedDetector``: what it yields is a match of its patterns, or a part of one, and the
    JWT plugin yields fewer), and detect-secrets need not be imported. True when one matches, or when the
    patterns are not known (``pre_check``)."""
    patterns = pre_check()
    return patterns is None or any(pattern.search(sample) is not None for pattern in patterns)


def _extra_plugins() -> list:
    from detect_secrets.plugins.base import RegexBasedDetector

    class AnthropicKeyDetector(RegexBasedDetector):
        """Anthropic API, admin and OAuth keys (``sk-ant-api03-...``)."""

        secret_type = "Anthropic API Key"
        denylist = [re.compile(_ANTHROPIC)]

    class GoogleApiKeyDetector(RegexBasedDetector):
        """Google Cloud / Gemini API keys."""

        secret_type = "Google API Key"
        denylist = [re.compile(_GOOGLE)]

    class OpenAIProjectKeyDetector(RegexBasedDetector):
        """OpenAI's project, service-account and admin keys (the library knows the older format only)."""

        secret_type = "OpenAI Token"
        denylist = [re.compile(_OPENAI_PROJECT)]

    class BearerTokenDetector(RegexBasedDetector):
        """An HTTP bearer token (``Authorization: Bearer ...``)."""

        secret_type = "Bearer Token"
        denylist = [re.compile(_BEARER)]

    return [AnthropicKeyDetector(), GoogleApiKeyDetector(), OpenAIProjectKeyDetector(), BearerTokenDetector()]


@lru_cache(maxsize=1)
def detectors() -> tuple:
    """The plugins, most specific first (an overlap is named by the first that found it)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    library = [cls() for cls in get_mapping_from_secret_type_to_class().values() if cls.__name__ not in _LEFT_OUT]
    library.sort(key=lambda p: p.secret_type in ("JSON Web Token", "Basic Auth Credentials"))
    extra = _extra_plugins()
    return tuple(extra[:3] + library + extra[3:])


def find_in(text: str) -> list[Secret]:
    """The secrets in ``text``, in order, overlaps merged."""
    sample = candidate_lines(text)
    if not sample or not could_match(sample):
        return []
    spans: list[tuple[int, int, int, str]] = []  # start, end, priority, kind
    for rank, plugin in enumerate(detectors()):
        for value in set(plugin.analyze_string(sample)):
            if not value:
                continue
            start = text.find(value)
            while start != -1:
                end = start + len(value)
                if value[-1:].isalnum() or value[-1:] in "_-.":
                    end = _TOKEN_TAIL.match(text, end).end()
                if plugin.secret_type == "Private Key":
                    block = _PEM.search(text, max(0, start - 40))
                    if block is not None and block.start() <= start:
                        start, end = block.span()
                spans.append((start, end, rank, plugin.secret_type))
                start = text.find(value, start + len(value))
    spans.sort()
    merged: list[list[Any]] = []
    for start, end, rank, kind in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2], last[3] = rank, kind
        else:
            merged.append([start, end, rank, kind])
    return [Secret(kind, start, end, _last4(text[start:end], kind)) for start, end, _, kind in merged]


def _last4(value: str, kind: str) -> str:
    if kind == "Private Key":
        body = re.sub(r"-----[A-Z ]+-----|\s", "", value)
        return body[-4:]
    return value[-4:]


def marker(kind: str) -> str:
    return f"⟨redacted: {kind}⟩"


def redact_text(text: str) -> tuple[str, list[Secret]]:
    """``text`` with each secret replaced by ``⟨redacted: KIND⟩``, and what was replaced."""
    found = find_in(text)
    if not found:
        return text, []
    out, at = [], 0
    for secret in found:
        out += [text[at:secret.start], marker(secret.kind)]
        at = secret.end
    out.append(text[at:])
    return "".join(out), found


def redact_value(value: Any, skip: frozenset = OPAQUE_KEYS) -> tuple[Any, int]:
    """A JSON value with the secrets in its strings redacted (the values of the keys in ``skip``
    untouched, save in a tool_use's input, which is text key for key; the same objects where nothing
    changed), and how many were redacted."""
    if isinstance(value, str):
        text, found = redact_text(value)
        return text, len(found)
    if isinstance(value, dict):
        count, out, changed = 0, {}, False
        kind = value.get("type")
        whole = isinstance(kind, str) and kind in TOOL_USE_TYPES  # a hostile file's "type" may be a list
        for key, item in value.items():
            if key in skip:
                out[key] = item
                continue
            new, n = redact_value(item, NOTHING if whole and key == "input" else skip)
            count += n
            changed |= new is not item
            out[key] = new
        return (out if changed else value), count
    if isinstance(value, list):
        count, out, changed = 0, [], False
        for item in value:
            new, n = redact_value(item, skip)
            count += n
            changed |= new is not item
            out.append(new)
        return (out if changed else value), count
    return value, 0


def secret_findings(run: Run, places: list | None = None) -> list[Finding]:
    """One ``secret_in_content`` warning per secret: where, its kind and its last four characters;
    ``places``: the run's ``text_places``, when the caller walked them already."""
    findings = []
    for place in text_places(run) if places is None else places:
        for secret in find_in(place.text):
            findings.append(Finding(
                WARNING, RULE, place.index, place.block,
                f"{secret.kind} in the {place.what}, ending …{secret.last4}",
                "a credential in the run's text is in every copy of the run (convert --redact and "
                "export --redact write one without it)"))
    return findings


def redact_run(run: Run) -> tuple[Run, int]:
    """A copy of ``run`` with every secret redacted (messages, system, tools, recorded requests and
    responses), through its native form so nothing the file holds is missed; how many were redacted."""
    from tui.core import native

    doc, count = redact_value(native.run_to_dict(run))
    if not count:
        return run, 0
    copy = native.run_from_dict(doc, run.source.path, run.source.run_index, run.source.run_count)
    copy.source = run.source
    copy.meta = run.meta if "meta" not in doc else doc["meta"]
    return copy, count


_CUT_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.~]{8,}…$")


def redact_title(title: str) -> str:
    """A run's title (its first words, cut with ``…``) as it may be stored (the recent-runs list): each
    secret redacted, and a long token cut at the end dropped, since a cut secret no pattern matches."""
    text, _ = redact_text(title)
    return _CUT_TOKEN.sub("…", text)
