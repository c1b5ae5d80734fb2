//! One page tool as the server keeps it: its name, description and schema, the group it came
//! in, and its argument validator, compiled when the tool first runs.

use std::cell::OnceCell;
use std::rc::Rc;

use serde_json::Value;

use super::limits;

pub(crate) struct PageTool {
    pub name: String,
    pub description: Option<String>,
    /// The schema as agents see it (HTMLElement properties shown as `{uid}`).
    pub input_schema: Value,
    pub group: usize,
    /// Compiled at the first run; an error is the compiler's message.
    validator: OnceCell<Result<Rc<jsonschema::Validator>, String>>,
}

impl PageTool {
    /// A tool in no group yet (a WebMCP registration stays so; an event-based group sets
    /// its own index).
    pub(crate) fn new(name: String, description: Option<String>, input_schema: Value) -> PageTool {
        PageTool {
            name,
            description,
            input_schema,
            group: usize::MAX,
            validator: OnceCell::new(),
        }
    }

    /// The argument validator, compiled now if this is the tool's first run.
    pub(crate) fn validator(&self) -> Result<&jsonschema::Validator, &str> {
        match self
            .validator
            .get_or_init(|| limits::validator(&self.input_schema))
        {
            Ok(v) => Ok(v),
            Err(e) => Err(e),
        }
    }
}
