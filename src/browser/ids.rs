//! The ids the browser layer hands to the layers above: the call that owns a piece of
//! waiting work, the page an agent names, and the agent.

use std::fmt;

/// The unit of work that owns continuations: an MCP tool call, in practice. When it ends
/// (answered, cancelled, timed out) the continuations it owns are dropped unrun.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CallId(pub u64);

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which call a piece of pending work belongs to. `None`: work of the server itself.
pub(crate) type Owner = Option<CallId>;

/// One client's part of the browser (see `browser::agents`). The default agent is the one a
/// stdio server serves, in the browser's default context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct AgentId(pub u32);

impl AgentId {
    pub(crate) const DEFAULT: AgentId = AgentId(0);
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The id agents use for a page (`pageId`), stable for the life of its target. Ids count up
/// from 1 in the order the pages were attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PageId(u32);

impl PageId {
    /// An id no page has: page ids start at 1.
    pub(crate) const NONE: PageId = PageId(0);

    /// The page after this one in attach order.
    pub(crate) fn next(self) -> PageId {
        PageId(self.0 + 1)
    }

    /// A `pageId` argument as the agent wrote it (a JSON number the schema bounded). A value
    /// past every id the server hands out names no page.
    pub(crate) fn from_arg(n: f64) -> PageId {
        PageId(n as u32)
    }
}

impl fmt::Display for PageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl serde::Serialize for PageId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

/// A `pageId` argument, read as [`PageId::from_arg`] reads it.
impl<'de> serde::Deserialize<'de> for PageId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PageId, D::Error> {
        f64::deserialize(d).map(PageId::from_arg)
    }
}
