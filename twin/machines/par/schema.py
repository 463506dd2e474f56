"""The schema of a PAR sheet (pydantic, strict, unknown keys rejected)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# ---------------------------------------------------------------------------------------------
# Schema (pydantic, strict, unknown keys rejected)
# ---------------------------------------------------------------------------------------------

PosInt = Annotated[int, Field(gt=0)]
NonNegInt = Annotated[int, Field(ge=0)]
Symbol = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_]+$")]
GameId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")]
Text = Annotated[str, Field(min_length=1, max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _ReelModel(_Strict):
    symbols: list[Symbol] = Field(min_length=1)
    weights: list[PosInt] | None = None


class _ReelsHeader(_Strict):
    id: GameId
    name: Text
    kind: Literal["reels"]
    rows: PosInt
    lines: list[list[NonNegInt]] = Field(min_length=1)
    cost: PosInt | None = None


class _WildModel(_Strict):
    symbols: list[Symbol] = Field(min_length=1)
    excludes: list[Symbol] = Field(default_factory=list)


class _ScatterModel(_Strict):
    symbol: Symbol
    pays: dict[str, PosInt] = Field(default_factory=dict)


class _FreeSpinsModel(_Strict):
    trigger: Symbol | None = None
    count: PosInt
    spins: PosInt
    multiplier: PosInt = 1
    retrigger: bool = False
    reels: list[_ReelModel] | None = None


class _ProgressiveModel(_Strict):
    symbol: Symbol
    count: PosInt


class _ReelsFile(_Strict):
    game: _ReelsHeader
    reels: list[_ReelModel] = Field(min_length=1)
    pays: dict[str, dict[str, PosInt]] = Field(default_factory=dict)
    wild: _WildModel | None = None
    scatter: _ScatterModel | None = None
    free_spins: _FreeSpinsModel | None = None
    progressive: _ProgressiveModel | None = None


class _TableHeader(_Strict):
    id: GameId
    name: Text
    kind: Literal["table"]
    cost: PosInt


class _OutcomeModel(_Strict):
    name: Text
    weight: PosInt
    pay: NonNegInt
    progressive: bool = False


class _TableFile(_Strict):
    game: _TableHeader
    outcomes: list[_OutcomeModel] = Field(min_length=1)
