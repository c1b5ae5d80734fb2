//! Reads a `.heapsnapshot` (plain or gzip) as it streams: the `snapshot` header first, then
//! the flat `nodes`, `edges`, `locations` and `strings` arrays go straight into typed
//! columns, one number or string at a time (the embedded scope sections into `scopes`).
//! The JSON text is never held, and nothing of the file is trusted: a wrong field count, an
//! unknown type or a number out of range is an error that names it.

use std::io::{BufRead, BufReader, Read};

use serde::Deserialize;
use serde_json::Value;

use super::packed::{Builder, Packed};
use super::scan::Scanner;
use super::scopes::Sections;
use super::strings::Strings;

/// What the `snapshot` header says of the layout.
#[derive(Deserialize)]
pub(super) struct Header {
    meta: Meta,
    #[serde(default)]
    pub node_count: u64,
    #[serde(default)]
    pub root_index: Option<u64>,
    #[serde(default)]
    pub extra_native_bytes: Option<f64>,
}

#[derive(Deserialize)]
struct Meta {
    node_fields: Vec<String>,
    node_types: Vec<Value>,
    edge_fields: Vec<String>,
    edge_types: Vec<Value>,
    #[serde(default)]
    location_fields: Vec<String>,
    #[serde(default)]
    scope_fields: Vec<String>,
    #[serde(default)]
    scope_context_var_fields: Vec<String>,
    #[serde(default)]
    scope_use_fields: Vec<String>,
}

/// Where each field sits in a node's and an edge's run of numbers.
pub(super) struct Layout {
    pub node_fields: usize,
    node_slot: Vec<NodeField>,
    pub edge_fields: usize,
    edge_slot: Vec<EdgeField>,
    pub has_detachedness: bool,
    pub node_types: Vec<String>,
    pub edge_types: Vec<String>,
    location_fields: usize,
    /// Where a location's object index, script id, line and column sit in its record.
    location_slots: [Option<usize>; 4],
}

#[derive(Clone, Copy, PartialEq)]
enum NodeField {
    Type,
    Name,
    Id,
    SelfSize,
    EdgeCount,
    Detachedness,
    Other,
}

#[derive(Clone, Copy, PartialEq)]
enum EdgeField {
    Type,
    Name,
    ToNode,
    Other,
}

fn type_names(types: &[Value], offset: usize, what: &str) -> Result<Vec<String>, String> {
    let names = types.get(offset).and_then(Value::as_array).ok_or_else(|| {
        format!("snapshot.meta.{what}_types has no list of names for the type field")
    })?;
    names
        .iter()
        .map(|n| n.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("snapshot.meta.{what}_types: a type name is not a string"))
}

impl Layout {
    fn of(meta: &Meta) -> Result<Layout, String> {
        let node_slot: Vec<NodeField> = meta
            .node_fields
            .iter()
            .map(|f| match f.as_str() {
                "type" => NodeField::Type,
                "name" => NodeField::Name,
                "id" => NodeField::Id,
                "self_size" => NodeField::SelfSize,
                "edge_count" => NodeField::EdgeCount,
                "detachedness" => NodeField::Detachedness,
                _ => NodeField::Other,
            })
            .collect();
        for (need, name) in [
            (NodeField::Type, "type"),
            (NodeField::Name, "name"),
            (NodeField::Id, "id"),
            (NodeField::SelfSize, "self_size"),
            (NodeField::EdgeCount, "edge_count"),
        ] {
            if !node_slot.contains(&need) {
                return Err(format!("snapshot.meta.node_fields has no \"{name}\""));
            }
        }
        let edge_slot: Vec<EdgeField> = meta
            .edge_fields
            .iter()
            .map(|f| match f.as_str() {
                "type" => EdgeField::Type,
                "name_or_index" => EdgeField::Name,
                "to_node" => EdgeField::ToNode,
                _ => EdgeField::Other,
            })
            .collect();
        for (need, name) in [
            (EdgeField::Type, "type"),
            (EdgeField::Name, "name_or_index"),
            (EdgeField::ToNode, "to_node"),
        ] {
            if !edge_slot.contains(&need) {
                return Err(format!("snapshot.meta.edge_fields has no \"{name}\""));
            }
        }
        let node_type_at = node_slot.iter().position(|f| *f == NodeField::Type);
        let edge_type_at = edge_slot.iter().position(|f| *f == EdgeField::Type);
        let node_types = type_names(&meta.node_types, node_type_at.unwrap_or(0), "node")?;
        let edge_types = type_names(&meta.edge_types, edge_type_at.unwrap_or(0), "edge")?;
        if node_types.len() > 255 || edge_types.len() > 254 {
            return Err("snapshot.meta lists more than 255 node or edge types".into());
        }
        Ok(Layout {
            node_fields: node_slot.len(),
            has_detachedness: node_slot.contains(&NodeField::Detachedness),
            node_slot,
            edge_fields: edge_slot.len(),
            edge_slot,
            node_types,
            edge_types,
            location_fields: meta.location_fields.len(),
            location_slots: ["object_index", "script_id", "line", "column"]
                .map(|name| meta.location_fields.iter().position(|f| f == name)),
        })
    }
}

/// The file's content in columns, as read: nothing checked across arrays yet.
pub(super) struct Raw {
    pub header: Header,
    pub layout: Layout,
    pub node_type: Vec<u8>,
    pub node_name: Packed,
    pub node_id: Packed,
    pub self_size: Packed,
    /// Where each node's edges start, from the nodes' edge counts, and where the last ends.
    pub first_edge: Packed,
    /// What the nodes' edge counts add up to.
    pub edge_total: u64,
    pub detachedness: Vec<u8>,
    pub edge_type: Packed,
    pub edge_name: Packed,
    /// Each edge's target node (an ordinal: the file's index in `nodes` over the fields).
    pub edge_to: Packed,
    /// Source locations: a node (as its index in `nodes`), script id, line and column.
    pub locations: Vec<[u32; 4]>,
    pub strings: Strings,
    /// The scopes V8 embeds (`scopes`, `scope_context_vars`, `scope_uses`), unchecked.
    pub scopes: Sections,
}

/// Reads a snapshot from `input` (of `size` bytes, when known); gzip is recognised by its
/// magic bytes.
pub(super) fn read(input: impl Read, size: Option<u64>) -> Result<Raw, String> {
    let mut buffered = BufReader::with_capacity(1 << 20, input);
    let gzip = buffered
        .fill_buf()
        .map_err(|e| e.to_string())?
        .starts_with(&[0x1f, 0x8b]);
    if gzip {
        read_json(flate2::bufread::MultiGzDecoder::new(buffered), 0)
    } else {
        read_json(buffered, size.unwrap_or(0))
    }
}

fn read_json(input: impl Read, bytes: u64) -> Result<Raw, String> {
    let mut scan = Scanner::new(input);
    let mut top = Top {
        bytes,
        ..Top::default()
    };
    scan.begin_object()?;
    while let Some(key) = scan.next_key()? {
        top.section(&mut scan, &key)?;
    }
    scan.end()?;
    top.finish()
}

#[derive(Default)]
struct Top {
    /// The JSON text's length when known (0 when not): no array holds more numbers than
    /// half of it, whatever the header declares.
    bytes: u64,
    header: Option<(Header, Layout)>,
    nodes: Option<Nodes>,
    edges: Option<Edges>,
    locations: Vec<[u32; 4]>,
    strings: Option<Strings>,
    scopes: Sections,
}

impl Top {
    fn finish(self) -> Result<Raw, String> {
        let (mut header, layout) = self.header.ok_or("the file has no \"snapshot\" header")?;
        let nodes = self.nodes.ok_or("the file has no \"nodes\" array")?;
        let edges = self.edges.ok_or("the file has no \"edges\" array")?;
        let mut strings = self.strings.ok_or("the file has no \"strings\" array")?;
        // Columns grown as the file came give back what they did not fill.
        strings.shrink();
        let meta = &mut header.meta;
        let mut scopes = self.scopes;
        scopes.scope_fields = std::mem::take(&mut meta.scope_fields);
        scopes.var_fields = std::mem::take(&mut meta.scope_context_var_fields);
        scopes.use_fields = std::mem::take(&mut meta.scope_use_fields);
        Ok(Raw {
            header,
            layout,
            node_type: nodes.node_type,
            node_name: nodes.node_name,
            node_id: nodes.node_id,
            self_size: nodes.self_size,
            first_edge: nodes.first_edge,
            edge_total: nodes.edge_total,
            detachedness: nodes.detachedness,
            edge_type: edges.edge_type,
            edge_name: edges.edge_name,
            edge_to: edges.edge_to,
            locations: self.locations,
            strings,
            scopes,
        })
    }

    fn layout(&self, array: &str) -> Result<&Layout, String> {
        match &self.header {
            Some((_, layout)) => Ok(layout),
            None => Err(format!("\"{array}\" comes before the \"snapshot\" header")),
        }
    }
}

/// Slots reserved up front when the text's length is unknown: the rest grow with what the
/// file really holds.
const RESERVE_UNKNOWN: u64 = 1 << 16;

/// Records of `width` numbers to reserve for `declared` of them: never more than the text
/// could hold (each number takes at least two bytes), so a header that declares billions
/// costs nothing.
fn reserve_for(declared: u64, width: usize, bytes: u64) -> usize {
    let could = if bytes == 0 {
        RESERVE_UNKNOWN
    } else {
        bytes / (2 * width.max(1) as u64)
    };
    declared.min(could) as usize
}

impl Top {
    /// Reads the section named `key` into its columns.
    fn section(&mut self, scan: &mut Scanner<impl Read>, key: &str) -> Result<(), String> {
        match key {
            "snapshot" => {
                let header: Header = scan.value("the \"snapshot\" header")?;
                let layout = Layout::of(&header.meta)?;
                self.header = Some((header, layout));
            }
            "nodes" => {
                let layout = self.layout("nodes")?;
                let declared = self.header.as_ref().map_or(0, |h| h.0.node_count);
                let reserve = reserve_for(declared, layout.node_fields, self.bytes);
                self.nodes = Some(Nodes::read(scan, layout, reserve)?);
            }
            "edges" => {
                let layout = self.layout("edges")?;
                self.edges = Some(Edges::read(scan, layout)?);
            }
            "locations" => {
                let layout = self.layout("locations")?;
                let (width, at) = (layout.location_fields, layout.location_slots);
                read_locations(scan, &mut self.locations, width, at)?;
            }
            "strings" => {
                let mut strings = Strings::new();
                scan.strings("the strings array", |s| {
                    strings
                        .push(s)
                        .map(|_| ())
                        .ok_or_else(|| "the strings pass 4 GB".to_owned())
                })?;
                self.strings = Some(strings);
            }
            "scopes" | "scope_context_vars" | "scope_uses" => {
                scan.value_into(&format!("the {key} array"), self.scopes.seed(key))?
            }
            other => scan.skip(&format!("\"{other}\""))?,
        }
        Ok(())
    }
}

/// The nodes' columns as they are read; `finish` makes them `Raw`'s.
struct NodeColumns {
    node_type: Vec<u8>,
    node_name: Builder,
    node_id: Builder,
    self_size: Builder,
    first_edge: Builder,
    edge_total: u64,
    detachedness: Vec<u8>,
}

/// The nodes' columns, read whole.
struct Nodes {
    node_type: Vec<u8>,
    node_name: Packed,
    node_id: Packed,
    self_size: Packed,
    first_edge: Packed,
    edge_total: u64,
    detachedness: Vec<u8>,
}

impl NodeColumns {
    fn new(layout: &Layout, n: usize) -> NodeColumns {
        NodeColumns {
            node_type: Vec::with_capacity(n),
            node_name: Builder::new(),
            node_id: Builder::new(),
            self_size: Builder::new(),
            first_edge: Builder::new(),
            edge_total: 0,
            detachedness: Vec::with_capacity(if layout.has_detachedness { n } else { 0 }),
        }
    }

    /// A node's edge count: its first edge is where the edges so far end.
    fn edge_count(&mut self, count: u32) -> Result<(), String> {
        self.first_edge.push(self.edge_total as u32);
        self.edge_total += count as u64;
        if self.edge_total > u32::MAX as u64 {
            return Err("the nodes' edge counts add up to more than 4294967295 edges".into());
        }
        Ok(())
    }

    fn finish(mut self) -> Nodes {
        self.first_edge.push(self.edge_total as u32);
        self.node_type.shrink_to_fit();
        self.detachedness.shrink_to_fit();
        Nodes {
            node_type: self.node_type,
            node_name: self.node_name.finish(),
            node_id: self.node_id.finish(),
            self_size: self.self_size.finish(),
            first_edge: self.first_edge.finish(),
            edge_total: self.edge_total,
            detachedness: self.detachedness,
        }
    }
}

impl Nodes {
    fn read(scan: &mut Scanner<impl Read>, layout: &Layout, n: usize) -> Result<Nodes, String> {
        let mut c = NodeColumns::new(layout, n);
        let width = layout.node_types.len();
        let mut slot = 0;
        scan.numbers("the nodes array", |v| {
            match layout.node_slot[slot] {
                NodeField::Type => {
                    if v as usize >= width {
                        let n = c.node_type.len();
                        return Err(format!(
                            "node {n} has type {v}, but snapshot.meta lists {width} node types"
                        ));
                    }
                    c.node_type.push(v as u8);
                }
                NodeField::Name => c.node_name.push(v),
                NodeField::Id => c.node_id.push(v),
                NodeField::SelfSize => c.self_size.push(v),
                NodeField::EdgeCount => c.edge_count(v)?,
                NodeField::Detachedness => c.detachedness.push((v & 3) as u8),
                NodeField::Other => {}
            }
            slot += 1;
            if slot == layout.node_fields {
                slot = 0;
            }
            Ok(())
        })?;
        if slot != 0 {
            return Err(format!(
                "the nodes array's length is not a multiple of its {} node fields",
                layout.node_fields
            ));
        }
        Ok(c.finish())
    }
}

struct Edges {
    edge_type: Packed,
    edge_name: Packed,
    edge_to: Packed,
}

impl Edges {
    fn read(scan: &mut Scanner<impl Read>, layout: &Layout) -> Result<Edges, String> {
        let (mut types, mut names, mut to) = (Builder::new(), Builder::new(), Builder::new());
        let width = layout.edge_types.len();
        let node_fields = layout.node_fields as u32;
        let mut slot = 0;
        scan.numbers("the edges array", |v| {
            match layout.edge_slot[slot] {
                EdgeField::Type => {
                    if v as usize >= width {
                        let n = types.len();
                        return Err(format!(
                            "edge {n} has type {v}, but snapshot.meta lists {width} edge types"
                        ));
                    }
                    types.push(v);
                }
                EdgeField::Name => names.push(v),
                // Kept as the node's ordinal; whether that node exists is checked once the
                // nodes are known.
                EdgeField::ToNode => {
                    if v % node_fields != 0 {
                        let i = to.len();
                        return Err(format!("edge {i} points to {v}, which is not a node"));
                    }
                    to.push(v / node_fields);
                }
                EdgeField::Other => {}
            }
            slot += 1;
            if slot == layout.edge_fields {
                slot = 0;
            }
            Ok(())
        })?;
        if slot != 0 {
            return Err(format!(
                "the edges array's length is not a multiple of its {} edge fields",
                layout.edge_fields
            ));
        }
        Ok(Edges {
            edge_type: types.finish(),
            edge_name: names.finish(),
            edge_to: to.finish(),
        })
    }
}

/// Each location record's object index, script id, line and column.
fn read_locations(
    scan: &mut Scanner<impl Read>,
    out: &mut Vec<[u32; 4]>,
    width: usize,
    at: [Option<usize>; 4],
) -> Result<(), String> {
    let mut slot = 0;
    let mut record = [0u32; 4];
    scan.numbers("the locations array", |v| {
        for (field, place) in at.iter().enumerate() {
            if *place == Some(slot) {
                record[field] = v;
            }
        }
        slot += 1;
        if slot >= width {
            slot = 0;
            out.push(record);
        }
        Ok(())
    })
}
