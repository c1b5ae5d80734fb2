//! A node's name as DevTools shows it: a concatenated string's text (its parts joined, up
//! to about 1,024 characters), a plain object's property names (`{a, b, …, z}`), else the
//! name the snapshot gives.

use super::graph::Graph;
use super::js;

pub(crate) fn name(g: &Graph, node: u32) -> String {
    let ty = g.node_type[node as usize];
    if ty == g.types.cons_string {
        return cons_string(g, node);
    }
    if ty == g.types.object && g.raw_name(node) == "Object" {
        return plain_object(g, node);
    }
    g.raw_name(node).to_owned()
}

fn cons_string(g: &Graph, node: u32) -> String {
    let mut stack = vec![node];
    let mut name = String::new();
    let mut length = 0;
    while length < 1024 {
        let Some(n) = stack.pop() else { break };
        if g.node_type[n as usize] != g.types.cons_string {
            let part = g.raw_name(n);
            length += js::length(part);
            name.push_str(part);
            continue;
        }
        let (mut a, mut b) = (0u32, 0u32);
        for e in g.edges(n) {
            if a != 0 && b != 0 {
                break;
            }
            if g.edge_type(e) != g.types.internal {
                continue;
            }
            let edge_name = g.strings.get(g.edge_name_index(e));
            if edge_name == "first" {
                a = g.edge_to(e);
            } else if edge_name == "second" {
                b = g.edge_to(e);
            }
        }
        stack.push(b);
        stack.push(a);
    }
    name
}

/// `{first, second, …, last}`: property names taken alternately from the front and the back
/// of the object's edges until the name would pass 100 characters.
fn plain_object(g: &Graph, node: u32) -> String {
    let edges = g.edges(node);
    let (mut front, mut back) = (edges.start as isize, edges.end as isize - 1);
    let mut start = String::from("{");
    let mut end = String::from("}");
    let (mut start_len, mut end_len) = (1usize, 1usize);
    let mut from_back = false;
    while front <= back {
        let e = if from_back { back } else { front } as usize;
        let name = g.edge_name(e);
        if g.edge_type(e) != g.types.property || name == "__proto__" {
            if from_back {
                back -= 1;
            } else {
                front += 1;
            }
            continue;
        }
        let formatted = js::property_name(&name);
        let formatted_len = js::length(&formatted);
        if start_len > 1 && start_len + end_len + formatted_len > 100 {
            break;
        }
        if from_back {
            back -= 1;
            if end_len > 1 {
                end.insert_str(0, ", ");
                end_len += 2;
            }
            end.insert_str(0, &formatted);
            end_len += formatted_len;
        } else {
            front += 1;
            if start_len > 1 {
                start.push_str(", ");
                start_len += 2;
            }
            start.push_str(&formatted);
            start_len += formatted_len;
        }
        from_back = !from_back;
    }
    if front <= back {
        start.push_str(", …");
    }
    if end_len > 1 {
        start.push_str(", ");
    }
    start + &end
}
