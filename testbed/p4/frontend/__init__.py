"""The P4 source as a syntax tree: the preprocessor (with its #if expressions), the
grammar and its LALR parser, and the vocabulary of P4 types the later stages share."""
