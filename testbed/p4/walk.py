"""The traversal both code generators share: which method emits each IR construct, and
the limit both put on a loop.

The Python target's compiler and the native backend's C generator are two emitters of
one walk over the IR: for a statement ``s_<its class>``, for an expression ``x_<its
class>``, for a call statement one method per kind of call (``CALLS``), for a call of
one of v1model's extern functions ``fn_<name>`` (``EXTERN_FUNCTIONS``). A construct an
emitter lacks is ``unsupported`` at its P4 location, in each language's words; so a new
IR construct is lowered once and gets one method in each emitter.
"""
from __future__ import annotations

MAX_LOOP = 1 << 16      # iterations of one loop for one packet, then a failed assertion

# the method that emits a call statement, by ir.Call.kind; each takes (call, scope, indent)
CALLS = {"builtin": "builtin", "table_apply": "apply_table", "action": "call_action",
         "function": "call_function", "extern_method": "extern_method",
         "extern_function": "extern_function"}

# v1model's extern functions by the name of the method that emits a call of each (fn_NAME)
EXTERN_FUNCTIONS = {
    "mark_to_drop": "mark_to_drop", "hash": "hash", "random": "random",
    "verify_checksum": "checksum", "update_checksum": "checksum",
    "verify_checksum_with_payload": "checksum", "update_checksum_with_payload": "checksum",
    "digest": "digest", "clone": "clone", "clone_preserving_field_list": "clone",
    "resubmit_preserving_field_list": "resubmit",
    "recirculate_preserving_field_list": "recirculate", "truncate": "truncate",
    "log_msg": "log_msg", "assert": "assertion", "assume": "assertion", "verify": "verify",
    # the deprecated forms that pass the data to preserve as an argument
    "clone3": "with_data", "resubmit": "with_data", "recirculate": "with_data",
}


class CodeWalk:
    """The dispatch of the walk; an emitter defines the methods it names, ``at_statement``
    (what it records where a statement starts), ``unsupported`` and
    ``unknown_extern_function``."""

    def stmt(self, st, s, ind: int) -> None:
        m = getattr(self, "s_" + type(st).__name__, None)
        if m is None:
            self.unsupported(f"statement {type(st).__name__}", st.loc)
        self.at_statement(st, ind)
        m(st, s, ind)

    def expr(self, e, s) -> str:
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            self.unsupported(f"expression {type(e).__name__}", e.loc)
        return m(e, s)

    def s_CallStmt(self, st, s, ind: int) -> None:
        c = st.call
        if c.kind not in CALLS:
            self.unsupported(f"call kind {c.kind}", c.loc)
        getattr(self, CALLS[c.kind])(c, s, ind)

    def extern_function(self, c, s, ind: int) -> None:
        name = EXTERN_FUNCTIONS.get(c.method)
        emit = getattr(self, f"fn_{name}", None) if name else None
        if emit is None:
            self.unknown_extern_function(c)
        emit(c, s, ind)

    def at_statement(self, st, ind: int) -> None:
        raise NotImplementedError

    def unknown_extern_function(self, c) -> None:
        raise NotImplementedError

    def unsupported(self, construct: str, loc) -> None:
        raise NotImplementedError
