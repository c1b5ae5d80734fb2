//! Checks that start no process: the architecture's rules on the source text, the generated
//! CDP bindings against their generator, every schema bounded, the line framing's
//! properties, and the trace analyser on traces the reference recorded.

mod arg_bounds;
mod layers;
mod protocol_bindings;
mod protocol_framing;
pub(crate) mod trace_fixtures;
