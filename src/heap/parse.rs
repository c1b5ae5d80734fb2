//! Reads a `.heapsnapshot` (plain or gzip) as it streams: the `snapshot` header first, then
//! the flat `nodes`, `edges`, `locations` and `strings` arrays go straight into typed
//! columns, one number or string at a time (the embedded scope sections into `scopes`).
//! The JSON text is never held, and nothing of the file is trusted: a wrong field count, an
//! unknown type or a number out of range is an error that names it.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;

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
    slots: Vec<NodeField>,
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

impl Columns for NodeColumns {
    #[inline]
    fn push(&mut self, slot: usize, v: u32) {
        match self.slots[slot] {
            NodeField::Type => self.node_type.push(v as u8),
            NodeField::Name => self.node_name.push(v),
            NodeField::Id => self.node_id.push(v),
            NodeField::SelfSize => self.self_size.push(v),
            // A node's first edge is where the edges so far end (their sum was checked).
            NodeField::EdgeCount => {
                self.first_edge.push(self.edge_total as u32);
                self.edge_total += v as u64;
            }
            NodeField::Detachedness => self.detachedness.push((v & 3) as u8),
            NodeField::Other => {}
        }
    }
}

impl NodeColumns {
    fn new(layout: &Layout, n: usize) -> NodeColumns {
        NodeColumns {
            slots: layout.node_slot.clone(),
            node_type: Vec::with_capacity(n),
            node_name: Builder::new(),
            node_id: Builder::new(),
            self_size: Builder::new(),
            first_edge: Builder::new(),
            edge_total: 0,
            detachedness: Vec::with_capacity(if layout.has_detachedness { n } else { 0 }),
        }
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
    /// The text is scanned and checked on this thread, the columns filled on a second one.
    fn read(scan: &mut Scanner<impl Read>, layout: &Layout, n: usize) -> Result<Nodes, String> {
        let width = layout.node_types.len();
        let mut edge_total = 0u64;
        let check = |node: usize, slot: usize, v: u32| match layout.node_slot[slot] {
            NodeField::Type if v as usize >= width => Err(format!(
                "node {node} has type {v}, but snapshot.meta lists {width} node types"
            )),
            NodeField::EdgeCount => {
                edge_total += v as u64;
                if edge_total > u32::MAX as u64 {
                    return Err(
                        "the nodes' edge counts add up to more than 4294967295 edges".into(),
                    );
                }
                Ok(())
            }
            _ => Ok(()),
        };
        let columns = NodeColumns::new(layout, n);
        let fields = layout.node_fields;
        let (columns, whole) = records_beside(scan, "the nodes array", fields, check, columns)?;
        if !whole {
            return Err(format!(
                "the nodes array's length is not a multiple of its {fields} node fields"
            ));
        }
        Ok(columns.finish())
    }
}

struct Edges {
    edge_type: Packed,
    edge_name: Packed,
    edge_to: Packed,
}

/// The edges' columns as they are read.
struct EdgeColumns {
    slots: Vec<EdgeField>,
    node_fields: u32,
    edge_type: Builder,
    edge_name: Builder,
    edge_to: Builder,
}

impl Columns for EdgeColumns {
    #[inline]
    fn push(&mut self, slot: usize, v: u32) {
        match self.slots[slot] {
            EdgeField::Type => self.edge_type.push(v),
            EdgeField::Name => self.edge_name.push(v),
            // Kept as the node's ordinal; whether that node exists is checked once the
            // nodes are known.
            EdgeField::ToNode => self.edge_to.push(v / self.node_fields),
            EdgeField::Other => {}
        }
    }
}

impl Edges {
    /// The text is scanned and checked on this thread, the columns filled on a second one.
    fn read(scan: &mut Scanner<impl Read>, layout: &Layout) -> Result<Edges, String> {
        let width = layout.edge_types.len();
        let node_fields = layout.node_fields as u32;
        let node_start = Multiples::of(node_fields);
        let check = |edge: usize, slot: usize, v: u32| match layout.edge_slot[slot] {
            EdgeField::Type if v as usize >= width => Err(format!(
                "edge {edge} has type {v}, but snapshot.meta lists {width} edge types"
            )),
            EdgeField::ToNode if !node_start.has(v) => {
                Err(format!("edge {edge} points to {v}, which is not a node"))
            }
            _ => Ok(()),
        };
        let columns = EdgeColumns {
            slots: layout.edge_slot.clone(),
            node_fields,
            edge_type: Builder::new(),
            edge_name: Builder::new(),
            edge_to: Builder::new(),
        };
        let fields = layout.edge_fields;
        let (columns, whole) = records_beside(scan, "the edges array", fields, check, columns)?;
        if !whole {
            return Err(format!(
                "the edges array's length is not a multiple of its {fields} edge fields"
            ));
        }
        Ok(Edges {
            edge_type: columns.edge_type.finish(),
            edge_name: columns.edge_name.finish(),
            edge_to: columns.edge_to.finish(),
        })
    }
}

/// Whether a `u32` is a multiple of a divisor known only at run time (a node's field count),
/// without a division on the scanning thread: one multiplication by a reciprocal computed
/// once, exact for every `u32` (Lemire, Kaser and Kurz, "Faster remainder by direct
/// computation", 2019).
#[derive(Clone, Copy)]
struct Multiples {
    reciprocal: u64,
}

impl Multiples {
    /// `divisor` is at least 2 (a node has five fields at least).
    fn of(divisor: u32) -> Multiples {
        Multiples {
            reciprocal: u64::MAX / divisor.max(2) as u64 + 1,
        }
    }

    fn has(self, v: u32) -> bool {
        (v as u64).wrapping_mul(self.reciprocal) < self.reciprocal
    }
}

/// Columns filled a number at a time, told which field of its record each is.
trait Columns: Send {
    fn push(&mut self, slot: usize, v: u32);
}

/// Numbers handed from the thread scanning the text to the one packing them into columns, a
/// batch at a time, so that the packing costs the scan nothing but the hand-over.
const BATCH: usize = 1 << 14;
/// Batches queued at once: what the hand-over holds is bounded whatever the file.
const QUEUED: usize = 4;

/// Reads an array of records of `fields` numbers: `check` sees each number (with its
/// record's ordinal and its field) on this thread, where the text is scanned, so its error
/// names the byte where the number is; `columns` takes them on a second thread and is given
/// back, with whether the array ended on a record's end.
fn records_beside<C: Columns>(
    scan: &mut Scanner<impl Read>,
    what: &str,
    fields: usize,
    mut check: impl FnMut(usize, usize, u32) -> Result<(), String>,
    mut columns: C,
) -> Result<(C, bool), String> {
    let (full, to_fill) = mpsc::sync_channel::<Vec<u32>>(QUEUED);
    let (emptied, empty) = mpsc::channel::<Vec<u32>>();
    std::thread::scope(|scope| {
        let filler = scope.spawn(move || {
            let mut slot = 0;
            for mut batch in to_fill {
                for &v in &batch {
                    columns.push(slot, v);
                    slot += 1;
                    if slot == fields {
                        slot = 0;
                    }
                }
                batch.clear();
                // The scanning thread may have stopped taking batches back.
                let _ = emptied.send(batch);
            }
            columns
        });
        let (mut record, mut slot) = (0, 0);
        let mut batch = Vec::with_capacity(BATCH);
        let scanned = scan.numbers(what, |v| {
            check(record, slot, v)?;
            slot += 1;
            if slot == fields {
                (record, slot) = (record + 1, 0);
            }
            batch.push(v);
            if batch.len() == BATCH {
                let next = empty
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                hand_over(&full, std::mem::replace(&mut batch, next))?;
            }
            Ok(())
        });
        let handed = scanned.and_then(|()| hand_over(&full, batch));
        // The filler ends once the batches stop coming, whether the read went well or not.
        drop(full);
        let columns = filler
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        handed.map(|()| (columns, slot == 0))
    })
}

fn hand_over(to: &mpsc::SyncSender<Vec<u32>>, batch: Vec<u32>) -> Result<(), String> {
    to.send(batch)
        .map_err(|_| "the thread filling the columns stopped".to_owned())
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

#[cfg(test)]
mod tests {
    use super::Multiples;

    #[test]
    fn multiples_are_told_without_a_division() {
        for d in 2..=12u32 {
            let m = Multiples::of(d);
            let around = |k: u32| k.saturating_sub(40)..=k.saturating_add(40);
            let mut values: Vec<u32> = around(0).collect();
            values.extend(around(u32::MAX / 2));
            values.extend(around(u32::MAX));
            values.extend((0..10_000u32).map(|i| i.wrapping_mul(2_654_435_761)));
            for v in values {
                assert_eq!(m.has(v), v % d == 0, "{v} and {d}");
            }
        }
    }
}
