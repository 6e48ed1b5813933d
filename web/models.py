"""The request bodies of the JSON API (pydantic models: the OpenAPI page documents them).

Numbers are JSON numbers, handed on as numbers: an `Integer` is a JSON integer and a
`Temperature` a JSON number (an integer or not). The text the command line takes is accepted too
(``"3"``, ``"1.0"``, and ``"inf"`` for a uniform prior), as the API always has (a public
contract: the schema, and the ``loc`` of a refused value, stay what they were); either way the
value is checked where the CLI checks its options (`termo.interface.requests`, through
`web.service`), so a bad value gets the CLI's message.
Unknown fields are refused (a misspelt option must not be silently ignored); booleans are JSON
``true`` or ``false`` (not ``1`` or ``"yes"``). The options that several endpoints share are
declared once (`Game`, `Level`, `T`, `Beam`, `Depth`, ...).
"""

from __future__ import annotations

from typing import Annotated, Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, WithJsonSchema

from termo.games.registry import GAME_NAMES, MODE_NAMES

# the texts a number may be given as (the schema's pattern says which: "" is refused, as int("") is;
# the library checks them, not pydantic, so a refused text gets the CLI's message)
IntegerText = Annotated[StrictStr, WithJsonSchema({"type": "string", "pattern": r"^\s*[+-]?[0-9][0-9_]*\s*$"})]
NumberText = Annotated[StrictStr, WithJsonSchema({"type": "string", "pattern": (
    r"^\s*(\+?([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)([eE][+-]?[0-9]+)?|\+?[Ii][Nn][Ff]([Ii][Nn][Ii][Tt][YyOo])?|∞"
    r"|[Uu][Nn][Ii][Ff][Oo][Rr][Mm])\s*$")})]
BooleanText = Annotated[StrictStr, WithJsonSchema({"type": "string", "pattern": r"^\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\s*$"})]
# a text that is refused when empty (a guess, an answer, a history item, the opener, the objective)
NonEmptyText = Annotated[StrictStr, WithJsonSchema({"type": "string", "minLength": 1})]
# a JSON integer (or its text, as the command line writes it: "3")
Integer = Union[StrictInt, IntegerText]
# a JSON number, integer or not (or its text: "0.5", "inf"); `termo.interface.requests.parse_t` reads it
Temperature = Union[StrictInt, StrictFloat, NumberText]

# the options several requests share, declared once
Game = Annotated[StrictStr, Field(description=", ".join(GAME_NAMES))]
Board = Annotated[StrictStr, Field(description=f"a game ({', '.join(GAME_NAMES)}) or a mode of several boards "
                                               f"({', '.join(MODE_NAMES)})")]
History = Annotated[List[NonEmptyText], Field(description="rounds played, guess:colours (e.g. tarso:BBBBB); a mode of "
                                                       "several boards: guess:p1/p2/.../pB, one colour pattern per "
                                                       "board, '-' for a board already solved")]
Objective = Annotated[NonEmptyText, Field(description="several boards: finish (expected guesses), score (sum of the "
                                                   "boards' turns) or win (probability of solving every board); "
                                                   "one board: finish")]
Level = Annotated[Integer, Field(description="1 letter frequency, 2 entropy, 3 expected guesses")]
T = Annotated[Temperature, Field(description="prior temperature; 'inf' = uniform")]
Beam = Annotated[Integer, Field(description="level 3: guesses tried per search node")]
Depth = Annotated[Integer, Field(description="level 3: search depth below the root")]
Extended = Annotated[StrictBool, Field(description="Termo: also guess the conjugated forms")]
Strict = Annotated[StrictBool, Field(description="Nerdle: only the written form wins")]
Hard = Annotated[StrictBool, Field(description="hard mode")]
ListCount = Annotated[Optional[Integer], Field(description="also the N most likely candidates (key 'remaining')")]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuggestBody(_Body):
    """``termo suggest HISTORY... --json`` (every option of the command), for a game or a mode."""

    game: Board = "termo"
    history: History = Field(default_factory=list)
    level: Level = 3
    t: T = 1.0
    beam: Beam = 10
    depth: Depth = 1
    extended: Extended = False
    strict: Strict = False
    opener: NonEmptyText = Field("default", description="default (the game's interface opener) or optimal")
    hard: Hard = False
    list: ListCount = None
    no_tree: StrictBool = Field(False, description="never walk a stored strategy tree: always the live search (--no-tree)")
    objective: Objective = "finish"


class FeedbackBody(_Body):
    """``termo feedback GUESS ANSWER --json``."""

    guess: NonEmptyText
    answer: NonEmptyText
    game: StrictStr = "termo"
    strict: StrictBool = False


class PartitionBody(_Body):
    """``termo partition GUESS HISTORY... --json``."""

    guess: NonEmptyText
    history: List[NonEmptyText] = Field(default_factory=list)
    game: StrictStr = "termo"
    t: Temperature = 1


class CandidatesBody(_Body):
    """The candidates a history leaves (no suggestion): what the board shows after its last try;
    a mode of several boards: each board's."""

    game: Board = "termo"
    history: History = Field(default_factory=list)
    extended: StrictBool = False
    strict: StrictBool = False
    hard: StrictBool = False
    list: Optional[Integer] = None


ModeName = Annotated[StrictStr, Field(description=", ".join(MODE_NAMES))]


class ModeSuggestBody(_Body):
    """``POST /api/suggest`` for a mode of several boards, named by ``mode`` (the same answer)."""

    mode: ModeName = "dueto"
    history: History = Field(default_factory=list)
    level: Annotated[Integer, Field(description="2 joint entropy, 3 the best expected objective")] = 3
    objective: Objective = "finish"


class ModeBoardsBody(_Body):
    """``POST /api/candidates`` for a mode of several boards, named by ``mode``."""

    mode: ModeName = "dueto"
    history: History = Field(default_factory=list)


class ReviewBody(_Body):
    """``termo review ... --json`` (docs/review.md): the game and the rounds played, as ``history``,
    or as ``guesses`` with ``answer`` or ``share_text``."""

    game: Annotated[StrictStr, Field(description="a game or a mode of several boards; not given, with a share_text "
                                                 "whose header names its game: that game (else termo)")] = "termo"
    history: History = Field(default_factory=list)
    guesses: Annotated[List[NonEmptyText], Field(description="the bare guesses, with answer or share_text")] = Field(
        default_factory=list)
    answer: Annotated[Optional[NonEmptyText], Field(description="the answer (a mode: the answers in board order, "
                                                                "comma-separated)")] = None
    share_text: Annotated[Optional[NonEmptyText], Field(description="a share text (the game's emoji grid): the colours "
                                                                 "of the guesses; its header may name the game and "
                                                                 "hard mode (*)")] = None
    hard: Hard = False
    t: T = 1.0
    loss: Annotated[Optional[Temperature], Field(description="one board: an answer not found costs this many guesses "
                                                             "beyond the tries (default 7; 'inf': every answer must "
                                                             "be found)")] = None
    objective: Objective = "finish"
    nodes: Annotated[Optional[Integer], Field(description="the exact search's budget per turn (states; a mode: joint "
                                                          "outcomes); past it a turn is valued by level 3")] = None
    share: StrictBool = Field(False, description="only the game's share text, no review")
    number: Annotated[Optional[Integer], Field(description="the puzzle number the share text shows")] = None


class ErrorBody(BaseModel):
    """Every error answer (422, 413, 503, ...): ``detail`` always; the others where they apply."""

    detail: str = Field(description="one line: the CLI's message (a flag named by its field: 'level')")
    loc: Optional[List[Union[str, int]]] = Field(None, description="a malformed request: where (e.g. ['body', 'hard'])")
    code: Optional[str] = Field(None, description="the message's code in the server's catalogue")
    params: Optional[Dict[str, object]] = Field(None, description="the values the message is built from")
    messages: Optional[Dict[str, str]] = Field(None, description="the message in each language: en, pt, ru")
