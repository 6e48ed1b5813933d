"""The request bodies of the JSON API (pydantic models: the OpenAPI page documents them).

Numbers may be given as JSON numbers or as the text the command line takes (``"inf"``, ``"3"``);
they are checked by the CLI's own parsers (`web.service`), so a bad value gets the CLI's message.
Unknown fields are refused (a misspelt option must not be silently ignored); booleans are JSON
``true`` or ``false`` (not ``1`` or ``"yes"``).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

Number = Union[StrictInt, StrictFloat, StrictStr]
Integer = Union[StrictInt, StrictStr]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuggestBody(_Body):
    """``termo suggest HISTORY... --json`` (every option of the command)."""

    game: StrictStr = Field("termo", description="termo, nerdle, nerdle-mini, wordle, wordle-ru")
    history: List[StrictStr] = Field(default_factory=list, description="rounds played, guess:colours (e.g. tarso:BBBBB)")
    level: Integer = Field(3, description="1 letter frequency, 2 entropy, 3 expected guesses")
    t: Number = Field(1.0, description="prior temperature; 'inf' = uniform")
    beam: Integer = Field(10, description="level 3: guesses tried per search node")
    depth: Integer = Field(1, description="level 3: search depth below the root")
    extended: StrictBool = Field(False, description="Termo: also guess the conjugated forms")
    strict: StrictBool = Field(False, description="Nerdle: only the written form wins")
    opener: StrictStr = Field("default", description="default (the game's interface opener) or optimal")
    hard: StrictBool = Field(False, description="hard mode")
    list: Optional[Integer] = Field(None, description="also the N most likely candidates (key 'remaining')")
    no_tree: StrictBool = Field(False, description="never walk a stored strategy tree: always the live search (--no-tree)")


class FeedbackBody(_Body):
    """``termo feedback GUESS ANSWER --json``."""

    guess: StrictStr
    answer: StrictStr
    game: StrictStr = "termo"
    strict: StrictBool = False


class PartitionBody(_Body):
    """``termo partition GUESS HISTORY... --json``."""

    guess: StrictStr
    history: List[StrictStr] = Field(default_factory=list)
    game: StrictStr = "termo"
    t: Number = 1


class CandidatesBody(_Body):
    """The candidates a history leaves (no suggestion): what the board shows after its last try."""

    game: StrictStr = "termo"
    history: List[StrictStr] = Field(default_factory=list)
    extended: StrictBool = False
    strict: StrictBool = False
    hard: StrictBool = False
    list: Optional[Integer] = None


class ErrorBody(BaseModel):
    """Every error answer (422, 413, 503, ...): ``detail`` always; the others where they apply."""

    detail: str = Field(description="one line: the CLI's message (a flag named by its field: 'level')")
    loc: Optional[List[Union[str, int]]] = Field(None, description="a malformed request: where (e.g. ['body', 'hard'])")
    code: Optional[str] = Field(None, description="the message's code in the server's catalogue")
    params: Optional[Dict[str, object]] = Field(None, description="the values the message is built from")
    messages: Optional[Dict[str, str]] = Field(None, description="the message in each language: en, pt, ru")
