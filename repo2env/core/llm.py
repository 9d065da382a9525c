"""One LLM client for the whole run, through the ``anthropic`` SDK (Messages API): instruction synthesis
(``instructions.synthesis``) and the setup agent (``environment.setup_agent``) both use it.

Retries (429, 5xx incl. 529 "overloaded", timeouts, connection errors) are the SDK's own (``max_retries``,
exponential backoff honouring ``retry-after``). Usage is read from the response (``usage.input_tokens``/
``output_tokens``) and priced from ``data/llm_prices.toml`` (USD per million tokens) or the price given. A budget
stops the calls once spent. The API key comes from ``ANTHROPIC_API_KEY`` and never appears in a message or a
file; ``ANTHROPIC_BASE_URL`` (read by the SDK) points the client elsewhere, e.g. at a test server.
"""

import logging
import os
import tomllib
from dataclasses import dataclass, field
from importlib import resources

from repo2env.core.errors import FatalSourceError, InputError

PROVIDERS = ("anthropic",)
log = logging.getLogger("repo2env.llm")


class LlmRejected(FatalSourceError):
    """The API refused the key (401/403): every later call would too, so the run ends."""


@dataclass(frozen=True)
class LlmConfig:
    """``--llm provider/model`` and its settings. Prices are USD per million tokens (None: from the table);
    ``temperature`` None leaves the model's default."""

    provider: str
    model: str
    temperature: float | None = None
    max_tokens: int = 1024
    timeout_sec: float = 60.0
    max_retries: int = 4
    budget_usd: float | None = None
    price_in: float | None = None
    price_out: float | None = None

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_llm(spec: str) -> tuple[str, str]:
    """``anthropic/claude-sonnet-4-6`` -> ``("anthropic", "claude-sonnet-4-6")``. Raises ``InputError``."""
    provider, sep, model = spec.partition("/")
    if not sep or not model or provider not in PROVIDERS:
        raise InputError(f"--llm {spec}: expected PROVIDER/MODEL with provider {', '.join(PROVIDERS)}, e.g. "
                         "anthropic/claude-sonnet-4-6")
    return provider, model


def list_price(provider: str, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for the longest matching model prefix, or None."""
    table = tomllib.loads(resources.files("repo2env").joinpath("data/llm_prices.toml").read_text())
    matches = [p for p in table.get(provider, {}) if model.startswith(p)]
    if not matches:
        return None
    row = table[provider][max(matches, key=len)]
    return float(row["input"]), float(row["output"])


@dataclass(frozen=True)
class Reply:
    """One model answer: its text and the tokens it cost, priced in USD (None when no price is known)."""

    text: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


@dataclass
class Usage:
    """Totals over a run: calls made, calls that failed after retries, tokens and USD."""

    calls: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    budget_stops: int = 0
    errors: list[str] = field(default_factory=list)

    def describe(self, budget: float | None) -> str:
        text = (f"{self.calls} calls, {self.input_tokens} input / {self.output_tokens} output tokens, "
                f"${self.cost_usd:.4f}")
        if budget is not None:
            text += f" of ${budget:.2f} budget"
        if self.budget_stops:
            text += f", {self.budget_stops} left to the deterministic text (budget reached)"
        if self.failures:
            text += f", {self.failures} failed"
        return text


class LlmClient:
    """Calls one model; keeps the run's ``usage``. Build with ``create``."""

    flag = "--llm"  # the option that configured it, for messages

    def __init__(self, config: LlmConfig, client, price: tuple[float, float] | None):
        self.config = config
        self.client = client
        self.price = price
        self.usage = Usage()
        self.last_error: str | None = None

    @classmethod
    def create(cls, config: LlmConfig):
        """Check the key and price, make the SDK client. Raises ``InputError`` (no key; a budget without a price)."""
        key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
        if not key:
            raise InputError(f"{cls.flag} {config.name}: ANTHROPIC_API_KEY is not set; export it or drop {cls.flag}")
        price = ((config.price_in, config.price_out) if config.price_in is not None
                 else list_price(config.provider, config.model))
        if price is None and config.budget_usd is not None:
            raise InputError(f"{cls.flag}-budget-usd: no list price known for {config.model}; pass "
                             f"{cls.flag}-price IN/OUT (USD per million tokens)")
        import anthropic  # only when a model is asked for

        client = anthropic.Anthropic(api_key=key, max_retries=config.max_retries, timeout=config.timeout_sec)
        return cls(config, client, price)

    def budget_left(self) -> bool:
        """False once the budget (if any) is spent."""
        return self.config.budget_usd is None or self.usage.cost_usd < self.config.budget_usd

    def ask(self, system: str, request: str) -> Reply | None:
        """One Messages API call. Returns None when the budget is spent (counted in ``usage.budget_stops``) or
        the call failed after the SDK's retries (recorded in ``usage`` and ``last_error``). Raises
        ``LlmRejected`` when the key is refused."""
        import anthropic

        if not self.budget_left():
            self.usage.budget_stops += 1
            return None
        try:
            # This SDK has no `temperature` argument any more; the API field is sent only when asked for.
            extra = {"temperature": self.config.temperature} if self.config.temperature is not None else None
            response = self.client.messages.create(
                model=self.config.model, max_tokens=self.config.max_tokens, extra_body=extra,
                system=system, messages=[{"role": "user", "content": request}])
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            raise LlmRejected(f"{self.flag} {self.config.name}: the API refused the key ({exc.status_code}); check "
                              "ANTHROPIC_API_KEY") from None
        except anthropic.APIError as exc:
            self.usage.failures += 1
            self.usage.errors.append(type(exc).__name__)
            self.last_error = f"{type(exc).__name__}: {str(exc)[:160]}"
            log.warning("%s %s: %s", self.flag, self.config.name, self.last_error)
            return None
        text = "".join(block.text for block in response.content if getattr(block, "type", "") == "text")
        tokens_in, tokens_out = response.usage.input_tokens, response.usage.output_tokens
        cost = None
        if self.price is not None:
            cost = round((tokens_in * self.price[0] + tokens_out * self.price[1]) / 1e6, 6)
            self.usage.cost_usd += cost
        self.usage.calls += 1
        self.usage.input_tokens += tokens_in
        self.usage.output_tokens += tokens_out
        return Reply(text=text, input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost)
