//! Checks that start no process: the architecture's rules on the source text, the generated
//! CDP bindings against their generator, and the trace analyser on traces the reference
//! recorded. (The schemas' bounds and the line framing's properties are unit tests beside
//! their code.)

mod layers;
mod protocol_bindings;
pub(crate) mod trace_fixtures;
