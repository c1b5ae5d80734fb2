//! MCP requests in flight. Each `tools/call` gets a call id that owns the work it starts;
//! finishing, cancelling or timing out the call removes it, and work it owned is dropped.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;

use crate::timers::TimerId;

pub struct Call {
    /// The JSON-RPC id to answer.
    pub rpc_id: Value,
    pub tool: &'static str,
    pub started: Instant,
    /// The call's time limit, when it has one.
    pub timer: Option<TimerId>,
    /// The page session whose JavaScript this call runs, so a timeout can stop a busy page.
    pub page_session: Option<String>,
}

#[derive(Default)]
pub struct Calls {
    next_id: u64,
    calls: HashMap<u64, Call>,
}

impl Calls {
    pub fn start(&mut self, rpc_id: Value, tool: &'static str) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.calls.insert(
            id,
            Call {
                rpc_id,
                tool,
                started: Instant::now(),
                timer: None,
                page_session: None,
            },
        );
        id
    }

    pub fn contains(&self, id: u64) -> bool {
        self.calls.contains_key(&id)
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut Call> {
        self.calls.get_mut(&id)
    }

    pub fn remove(&mut self, id: u64) -> Option<Call> {
        self.calls.remove(&id)
    }

    /// The call answering JSON-RPC request `rpc_id`, for cancellation.
    pub fn find_rpc(&self, rpc_id: &Value) -> Option<u64> {
        self.calls
            .iter()
            .find(|(_, c)| &c.rpc_id == rpc_id)
            .map(|(id, _)| *id)
    }
}
