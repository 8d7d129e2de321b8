from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Color(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLOR_UNSPECIFIED: _ClassVar[Color]
    COLOR_RED: _ClassVar[Color]
    COLOR_YELLOW: _ClassVar[Color]
    COLOR_GREEN: _ClassVar[Color]
    COLOR_BLUE: _ClassVar[Color]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_ZERO: _ClassVar[Rank]
    RANK_ONE: _ClassVar[Rank]
    RANK_TWO: _ClassVar[Rank]
    RANK_THREE: _ClassVar[Rank]
    RANK_FOUR: _ClassVar[Rank]
    RANK_FIVE: _ClassVar[Rank]
    RANK_SIX: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_SKIP: _ClassVar[Rank]
    RANK_REVERSE: _ClassVar[Rank]
    RANK_DRAW_TWO: _ClassVar[Rank]
    RANK_WILD: _ClassVar[Rank]
    RANK_WILD_DRAW_FOUR: _ClassVar[Rank]
    RANK_WILD_SHUFFLE_HANDS: _ClassVar[Rank]
    RANK_WILD_CUSTOMIZABLE: _ClassVar[Rank]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_PLAY_DRAWN: _ClassVar[Phase]
    PHASE_CHOOSE_COLOR: _ClassVar[Phase]
    PHASE_CHALLENGE: _ClassVar[Phase]
    PHASE_STACK: _ClassVar[Phase]
    PHASE_CATCH_WINDOW: _ClassVar[Phase]
    PHASE_JUMP_IN: _ClassVar[Phase]
    PHASE_GAME_OVER: _ClassVar[Phase]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]
    ACTION_KIND_DRAW: _ClassVar[ActionKind]
    ACTION_KIND_KEEP: _ClassVar[ActionKind]
    ACTION_KIND_CHOOSE_COLOR: _ClassVar[ActionKind]
    ACTION_KIND_CHALLENGE: _ClassVar[ActionKind]
    ACTION_KIND_ACCEPT: _ClassVar[ActionKind]
    ACTION_KIND_CALL_UNO: _ClassVar[ActionKind]
    ACTION_KIND_CATCH: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]

class DrawReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_REASON_UNSPECIFIED: _ClassVar[DrawReason]
    DRAW_REASON_DEAL: _ClassVar[DrawReason]
    DRAW_REASON_CHOICE: _ClassVar[DrawReason]
    DRAW_REASON_DRAW_TWO: _ClassVar[DrawReason]
    DRAW_REASON_DRAW_FOUR: _ClassVar[DrawReason]
    DRAW_REASON_CHALLENGE_GUILTY: _ClassVar[DrawReason]
    DRAW_REASON_CHALLENGE_FAILED: _ClassVar[DrawReason]
    DRAW_REASON_UNO_PENALTY: _ClassVar[DrawReason]
    DRAW_REASON_STACK: _ClassVar[DrawReason]

class HandEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_END_REASON_UNSPECIFIED: _ClassVar[HandEndReason]
    HAND_END_REASON_WENT_OUT: _ClassVar[HandEndReason]
    HAND_END_REASON_DEAD: _ClassVar[HandEndReason]
    HAND_END_REASON_TURN_LIMIT: _ClassVar[HandEndReason]

class SeatTermination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_TERMINATION_UNSPECIFIED: _ClassVar[SeatTermination]
    SEAT_TERMINATION_NORMAL: _ClassVar[SeatTermination]
    SEAT_TERMINATION_TIMEOUT: _ClassVar[SeatTermination]
    SEAT_TERMINATION_ILLEGAL: _ClassVar[SeatTermination]
    SEAT_TERMINATION_DISCONNECT: _ClassVar[SeatTermination]
    SEAT_TERMINATION_CRASH: _ClassVar[SeatTermination]
    SEAT_TERMINATION_MALFORMED: _ClassVar[SeatTermination]
    SEAT_TERMINATION_ABORTED: _ClassVar[SeatTermination]
COLOR_UNSPECIFIED: Color
COLOR_RED: Color
COLOR_YELLOW: Color
COLOR_GREEN: Color
COLOR_BLUE: Color
RANK_UNSPECIFIED: Rank
RANK_ZERO: Rank
RANK_ONE: Rank
RANK_TWO: Rank
RANK_THREE: Rank
RANK_FOUR: Rank
RANK_FIVE: Rank
RANK_SIX: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
RANK_NINE: Rank
RANK_SKIP: Rank
RANK_REVERSE: Rank
RANK_DRAW_TWO: Rank
RANK_WILD: Rank
RANK_WILD_DRAW_FOUR: Rank
RANK_WILD_SHUFFLE_HANDS: Rank
RANK_WILD_CUSTOMIZABLE: Rank
PHASE_UNSPECIFIED: Phase
PHASE_PLAY: Phase
PHASE_PLAY_DRAWN: Phase
PHASE_CHOOSE_COLOR: Phase
PHASE_CHALLENGE: Phase
PHASE_STACK: Phase
PHASE_CATCH_WINDOW: Phase
PHASE_JUMP_IN: Phase
PHASE_GAME_OVER: Phase
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PLAY: ActionKind
ACTION_KIND_DRAW: ActionKind
ACTION_KIND_KEEP: ActionKind
ACTION_KIND_CHOOSE_COLOR: ActionKind
ACTION_KIND_CHALLENGE: ActionKind
ACTION_KIND_ACCEPT: ActionKind
ACTION_KIND_CALL_UNO: ActionKind
ACTION_KIND_CATCH: ActionKind
ACTION_KIND_PASS: ActionKind
DRAW_REASON_UNSPECIFIED: DrawReason
DRAW_REASON_DEAL: DrawReason
DRAW_REASON_CHOICE: DrawReason
DRAW_REASON_DRAW_TWO: DrawReason
DRAW_REASON_DRAW_FOUR: DrawReason
DRAW_REASON_CHALLENGE_GUILTY: DrawReason
DRAW_REASON_CHALLENGE_FAILED: DrawReason
DRAW_REASON_UNO_PENALTY: DrawReason
DRAW_REASON_STACK: DrawReason
HAND_END_REASON_UNSPECIFIED: HandEndReason
HAND_END_REASON_WENT_OUT: HandEndReason
HAND_END_REASON_DEAD: HandEndReason
HAND_END_REASON_TURN_LIMIT: HandEndReason
SEAT_TERMINATION_UNSPECIFIED: SeatTermination
SEAT_TERMINATION_NORMAL: SeatTermination
SEAT_TERMINATION_TIMEOUT: SeatTermination
SEAT_TERMINATION_ILLEGAL: SeatTermination
SEAT_TERMINATION_DISCONNECT: SeatTermination
SEAT_TERMINATION_CRASH: SeatTermination
SEAT_TERMINATION_MALFORMED: SeatTermination
SEAT_TERMINATION_ABORTED: SeatTermination

class Card(_message.Message):
    __slots__ = ("rank", "color")
    RANK_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    rank: Rank
    color: Color
    def __init__(self, rank: _Optional[_Union[Rank, str]] = ..., color: _Optional[_Union[Color, str]] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("deck", "shuffle_hands_card", "customizable_effect", "hand_size", "uno_penalty", "challenge_extra_penalty", "wild_draw_four_rule", "reverse_first_card", "going_out_draw_four_challengeable", "scoring", "target_score", "individual_hands", "max_turns_per_hand", "max_hands", "choose_first_dealer", "progressive", "seven_o", "jump_in", "draw_to_match", "force_play", "last_card_no_action", "draw_four_bluffing")
    DECK_FIELD_NUMBER: _ClassVar[int]
    SHUFFLE_HANDS_CARD_FIELD_NUMBER: _ClassVar[int]
    CUSTOMIZABLE_EFFECT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNO_PENALTY_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_EXTRA_PENALTY_FIELD_NUMBER: _ClassVar[int]
    WILD_DRAW_FOUR_RULE_FIELD_NUMBER: _ClassVar[int]
    REVERSE_FIRST_CARD_FIELD_NUMBER: _ClassVar[int]
    GOING_OUT_DRAW_FOUR_CHALLENGEABLE_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    INDIVIDUAL_HANDS_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_PER_HAND_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    PROGRESSIVE_FIELD_NUMBER: _ClassVar[int]
    SEVEN_O_FIELD_NUMBER: _ClassVar[int]
    JUMP_IN_FIELD_NUMBER: _ClassVar[int]
    DRAW_TO_MATCH_FIELD_NUMBER: _ClassVar[int]
    FORCE_PLAY_FIELD_NUMBER: _ClassVar[int]
    LAST_CARD_NO_ACTION_FIELD_NUMBER: _ClassVar[int]
    DRAW_FOUR_BLUFFING_FIELD_NUMBER: _ClassVar[int]
    deck: str
    shuffle_hands_card: str
    customizable_effect: str
    hand_size: int
    uno_penalty: int
    challenge_extra_penalty: int
    wild_draw_four_rule: str
    reverse_first_card: str
    going_out_draw_four_challengeable: bool
    scoring: str
    target_score: int
    individual_hands: int
    max_turns_per_hand: int
    max_hands: int
    choose_first_dealer: bool
    progressive: bool
    seven_o: bool
    jump_in: bool
    draw_to_match: bool
    force_play: bool
    last_card_no_action: bool
    draw_four_bluffing: bool
    def __init__(self, deck: _Optional[str] = ..., shuffle_hands_card: _Optional[str] = ..., customizable_effect: _Optional[str] = ..., hand_size: _Optional[int] = ..., uno_penalty: _Optional[int] = ..., challenge_extra_penalty: _Optional[int] = ..., wild_draw_four_rule: _Optional[str] = ..., reverse_first_card: _Optional[str] = ..., going_out_draw_four_challengeable: _Optional[bool] = ..., scoring: _Optional[str] = ..., target_score: _Optional[int] = ..., individual_hands: _Optional[int] = ..., max_turns_per_hand: _Optional[int] = ..., max_hands: _Optional[int] = ..., choose_first_dealer: _Optional[bool] = ..., progressive: _Optional[bool] = ..., seven_o: _Optional[bool] = ..., jump_in: _Optional[bool] = ..., draw_to_match: _Optional[bool] = ..., force_play: _Optional[bool] = ..., last_card_no_action: _Optional[bool] = ..., draw_four_bluffing: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "card", "color", "target", "uno")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    UNO_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    card: Card
    color: Color
    target: int
    uno: bool
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., color: _Optional[_Union[Color, str]] = ..., target: _Optional[int] = ..., uno: _Optional[bool] = ...) -> None: ...

class RevealedHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "num_players", "phase", "decider", "turn", "hand", "hand_sizes", "top_card", "active_color", "direction", "dealer", "hand_number", "draw_pile_size", "discard_pile", "scores", "active_seats", "pending_draw", "drawn_card", "uno_offender", "revealed", "teams")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DECIDER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TOP_CARD_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_COLOR_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEATS_FIELD_NUMBER: _ClassVar[int]
    PENDING_DRAW_FIELD_NUMBER: _ClassVar[int]
    DRAWN_CARD_FIELD_NUMBER: _ClassVar[int]
    UNO_OFFENDER_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    phase: Phase
    decider: int
    turn: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    top_card: Card
    active_color: Color
    direction: int
    dealer: int
    hand_number: int
    draw_pile_size: int
    discard_pile: _containers.RepeatedCompositeFieldContainer[Card]
    scores: _containers.RepeatedScalarFieldContainer[int]
    active_seats: _containers.RepeatedScalarFieldContainer[int]
    pending_draw: int
    drawn_card: Card
    uno_offender: int
    revealed: _containers.RepeatedCompositeFieldContainer[RevealedHand]
    teams: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., decider: _Optional[int] = ..., turn: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., top_card: _Optional[_Union[Card, _Mapping]] = ..., active_color: _Optional[_Union[Color, str]] = ..., direction: _Optional[int] = ..., dealer: _Optional[int] = ..., hand_number: _Optional[int] = ..., draw_pile_size: _Optional[int] = ..., discard_pile: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., active_seats: _Optional[_Iterable[int]] = ..., pending_draw: _Optional[int] = ..., drawn_card: _Optional[_Union[Card, _Mapping]] = ..., uno_offender: _Optional[int] = ..., revealed: _Optional[_Iterable[_Union[RevealedHand, _Mapping]]] = ..., teams: _Optional[_Iterable[int]] = ...) -> None: ...

class DrawRound(_message.Message):
    __slots__ = ("draws",)
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    draws: _containers.RepeatedCompositeFieldContainer[SeatCard]
    def __init__(self, draws: _Optional[_Iterable[_Union[SeatCard, _Mapping]]] = ...) -> None: ...

class SeatCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class CardList(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("dealer_chosen", "hand_started", "cards_received", "hand_replaced", "starter_returned", "first_card", "card_played", "color_chosen", "cards_drawn", "card_kept", "turn_skipped", "direction_changed", "challenge_resolved", "hand_revealed", "challenge_declined", "uno_called", "uno_caught", "hands_swapped", "hands_rotated", "hands_shuffled", "deck_reshuffled", "hand_ended", "player_eliminated", "game_ended")
    DEALER_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    CARDS_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    HAND_REPLACED_FIELD_NUMBER: _ClassVar[int]
    STARTER_RETURNED_FIELD_NUMBER: _ClassVar[int]
    FIRST_CARD_FIELD_NUMBER: _ClassVar[int]
    CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    COLOR_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    CARDS_DRAWN_FIELD_NUMBER: _ClassVar[int]
    CARD_KEPT_FIELD_NUMBER: _ClassVar[int]
    TURN_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_CHANGED_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    HAND_REVEALED_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_DECLINED_FIELD_NUMBER: _ClassVar[int]
    UNO_CALLED_FIELD_NUMBER: _ClassVar[int]
    UNO_CAUGHT_FIELD_NUMBER: _ClassVar[int]
    HANDS_SWAPPED_FIELD_NUMBER: _ClassVar[int]
    HANDS_ROTATED_FIELD_NUMBER: _ClassVar[int]
    HANDS_SHUFFLED_FIELD_NUMBER: _ClassVar[int]
    DECK_RESHUFFLED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    dealer_chosen: DealerChosen
    hand_started: HandStarted
    cards_received: CardsReceived
    hand_replaced: HandReplaced
    starter_returned: StarterReturned
    first_card: FirstCard
    card_played: CardPlayed
    color_chosen: ColorChosen
    cards_drawn: CardsDrawn
    card_kept: CardKept
    turn_skipped: TurnSkipped
    direction_changed: DirectionChanged
    challenge_resolved: ChallengeResolved
    hand_revealed: HandRevealed
    challenge_declined: ChallengeDeclined
    uno_called: UnoCalled
    uno_caught: UnoCaught
    hands_swapped: HandsSwapped
    hands_rotated: HandsRotated
    hands_shuffled: HandsShuffled
    deck_reshuffled: DeckReshuffled
    hand_ended: HandEnded
    player_eliminated: PlayerEliminated
    game_ended: GameEnded
    def __init__(self, dealer_chosen: _Optional[_Union[DealerChosen, _Mapping]] = ..., hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., cards_received: _Optional[_Union[CardsReceived, _Mapping]] = ..., hand_replaced: _Optional[_Union[HandReplaced, _Mapping]] = ..., starter_returned: _Optional[_Union[StarterReturned, _Mapping]] = ..., first_card: _Optional[_Union[FirstCard, _Mapping]] = ..., card_played: _Optional[_Union[CardPlayed, _Mapping]] = ..., color_chosen: _Optional[_Union[ColorChosen, _Mapping]] = ..., cards_drawn: _Optional[_Union[CardsDrawn, _Mapping]] = ..., card_kept: _Optional[_Union[CardKept, _Mapping]] = ..., turn_skipped: _Optional[_Union[TurnSkipped, _Mapping]] = ..., direction_changed: _Optional[_Union[DirectionChanged, _Mapping]] = ..., challenge_resolved: _Optional[_Union[ChallengeResolved, _Mapping]] = ..., hand_revealed: _Optional[_Union[HandRevealed, _Mapping]] = ..., challenge_declined: _Optional[_Union[ChallengeDeclined, _Mapping]] = ..., uno_called: _Optional[_Union[UnoCalled, _Mapping]] = ..., uno_caught: _Optional[_Union[UnoCaught, _Mapping]] = ..., hands_swapped: _Optional[_Union[HandsSwapped, _Mapping]] = ..., hands_rotated: _Optional[_Union[HandsRotated, _Mapping]] = ..., hands_shuffled: _Optional[_Union[HandsShuffled, _Mapping]] = ..., deck_reshuffled: _Optional[_Union[DeckReshuffled, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., player_eliminated: _Optional[_Union[PlayerEliminated, _Mapping]] = ..., game_ended: _Optional[_Union[GameEnded, _Mapping]] = ...) -> None: ...

class DealerChosen(_message.Message):
    __slots__ = ("rounds", "dealer")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    rounds: _containers.RepeatedCompositeFieldContainer[DrawRound]
    dealer: int
    def __init__(self, rounds: _Optional[_Iterable[_Union[DrawRound, _Mapping]]] = ..., dealer: _Optional[int] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("hand_number", "dealer", "hand_sizes", "active_seats")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEATS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    dealer: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    active_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., active_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class CardsReceived(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class HandReplaced(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class StarterReturned(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: Card
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class FirstCard(_message.Message):
    __slots__ = ("card", "first_seat", "direction")
    CARD_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    card: Card
    first_seat: int
    direction: int
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., first_seat: _Optional[int] = ..., direction: _Optional[int] = ...) -> None: ...

class CardPlayed(_message.Message):
    __slots__ = ("seat", "card", "color", "uno", "jump_in", "target")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    UNO_FIELD_NUMBER: _ClassVar[int]
    JUMP_IN_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    color: Color
    uno: bool
    jump_in: bool
    target: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., color: _Optional[_Union[Color, str]] = ..., uno: _Optional[bool] = ..., jump_in: _Optional[bool] = ..., target: _Optional[int] = ...) -> None: ...

class ColorChosen(_message.Message):
    __slots__ = ("seat", "color")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    color: Color
    def __init__(self, seat: _Optional[int] = ..., color: _Optional[_Union[Color, str]] = ...) -> None: ...

class CardsDrawn(_message.Message):
    __slots__ = ("seat", "count", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    reason: DrawReason
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., reason: _Optional[_Union[DrawReason, str]] = ...) -> None: ...

class CardKept(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TurnSkipped(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class DirectionChanged(_message.Message):
    __slots__ = ("direction",)
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    direction: int
    def __init__(self, direction: _Optional[int] = ...) -> None: ...

class ChallengeResolved(_message.Message):
    __slots__ = ("challenger", "accused", "guilty")
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    ACCUSED_FIELD_NUMBER: _ClassVar[int]
    GUILTY_FIELD_NUMBER: _ClassVar[int]
    challenger: int
    accused: int
    guilty: bool
    def __init__(self, challenger: _Optional[int] = ..., accused: _Optional[int] = ..., guilty: _Optional[bool] = ...) -> None: ...

class HandRevealed(_message.Message):
    __slots__ = ("seat", "to_seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., to_seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class ChallengeDeclined(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class UnoCalled(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class UnoCaught(_message.Message):
    __slots__ = ("catcher", "seat")
    CATCHER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    catcher: int
    seat: int
    def __init__(self, catcher: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class HandsSwapped(_message.Message):
    __slots__ = ("seat", "other")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    other: int
    def __init__(self, seat: _Optional[int] = ..., other: _Optional[int] = ...) -> None: ...

class HandsRotated(_message.Message):
    __slots__ = ("direction",)
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    direction: int
    def __init__(self, direction: _Optional[int] = ...) -> None: ...

class HandsShuffled(_message.Message):
    __slots__ = ("seat", "hand_sizes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class DeckReshuffled(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: int
    def __init__(self, cards: _Optional[int] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("hand_number", "winner", "reason", "points", "totals", "cards_left")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    CARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    winner: int
    reason: HandEndReason
    points: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    cards_left: _containers.RepeatedCompositeFieldContainer[CardList]
    def __init__(self, hand_number: _Optional[int] = ..., winner: _Optional[int] = ..., reason: _Optional[_Union[HandEndReason, str]] = ..., points: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., cards_left: _Optional[_Iterable[_Union[CardList, _Mapping]]] = ...) -> None: ...

class PlayerEliminated(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class GameEnded(_message.Message):
    __slots__ = ("winners", "scores", "ranks", "termination")
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: str
    def __init__(self, winners: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[str] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("termination", "scores", "ranks", "winners", "hands_played", "seat_terminations")
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    SEAT_TERMINATIONS_FIELD_NUMBER: _ClassVar[int]
    termination: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    hands_played: int
    seat_terminations: _containers.RepeatedScalarFieldContainer[SeatTermination]
    def __init__(self, termination: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., hands_played: _Optional[int] = ..., seat_terminations: _Optional[_Iterable[_Union[SeatTermination, str]]] = ...) -> None: ...
