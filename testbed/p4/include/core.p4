/* Core library of P4_16 (language specification, appendix "core library"):
 * the declarations every P4_16 program may use, independent of the architecture. */
#ifndef _CORE_P4_
#define _CORE_P4_

/// Standard error codes; programs may add their own with further `error` declarations.
error {
    NoError,               /// no error
    PacketTooShort,        /// not enough bits in the packet for an extract
    NoMatch,               /// a select expression had no matching case
    StackOutOfBounds,      /// a reference to an invalid header stack element
    HeaderTooShort,        /// too many bits extracted into a varbit field
    ParserTimeout,         /// the parser ran for too long
    ParserInvalidArgument  /// an argument of a parser operation was invalid
}

/// The packet being parsed.
extern packet_in {
    /// Copy the next sizeof(T) bits of the packet into a fixed-size header and make it valid.
    void extract<T>(out T hdr);
    /// Same for a header with one varbit field, which receives variableFieldSizeInBits bits.
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /// Return the next sizeof(T) bits of the packet without consuming them.
    T lookahead<T>();
    /// Skip the given number of bits.
    void advance(in bit<32> sizeInBits);
    /// Length of the packet in bytes.
    bit<32> length();
}

/// The packet being built by a deparser.
extern packet_out {
    /// Append the header (if valid), or every valid header of a struct/stack, to the packet.
    void emit<T>(in T hdr);
}

/// In a parser: when check is false, stop parsing with the given error.
extern void verify(in bool check, in error toSignal);

/// The action that does nothing; the usual default action of a table.
@noWarn("unused")
action NoAction() {}

/// Match kinds every architecture supports.
match_kind {
    exact,
    ternary,
    lpm
}

#endif
