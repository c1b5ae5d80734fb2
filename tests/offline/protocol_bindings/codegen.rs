//! Generator for `src/cdp/generated.rs`: typed Chrome DevTools Protocol bindings for the
//! commands and events listed in `protocol/used.txt`, plus every type they reach.
//!
//! It is a module of the test crate, and its test (`offline::protocol_bindings`) is the one way
//! to run it (see protocol/README.md); it depends only on `serde_json` and `std`. The output is
//! emitted already formatted the way rustfmt would leave it, because the test compares it byte
//! for byte with the checked-in file and `cargo fmt` must not touch it.

// The fixed header, the module collector and the naming helpers.
mod header;
mod module;
mod names;

/// The generator's naming, for the test that reads `src/` for the generated types in use.
pub use names::{snake_case, upper_first};

use header::HEADER;
use module::Module;
use names::{field_name, push_doc};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Produces the complete text of `src/cdp/generated.rs`.
///
/// `browser_json` and `js_json` are `protocol/browser_protocol.json` and
/// `protocol/js_protocol.json`; `used` is the text of `protocol/used.txt`.
pub fn generate(browser_json: &str, js_json: &str, used: &str) -> Result<String, String> {
    let protocol = Protocol::parse(&[
        ("browser_protocol.json", browser_json),
        ("js_protocol.json", js_json),
    ])?;
    let used = parse_used(used)?;
    let mut generator = Generator::new(&protocol, used)?;
    generator.collect_types()?;
    generator.find_boxed_fields();
    generator.emit()
}

/// A command or event named in used.txt.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Command,
    Event,
}

/// The protocol JSON, both files merged, domains kept in file order.
struct Protocol {
    domains: Vec<Value>,
}

impl Protocol {
    fn parse(files: &[(&str, &str)]) -> Result<Protocol, String> {
        let mut domains = Vec::new();
        for (file, text) in files {
            let root: Value =
                serde_json::from_str(text).map_err(|e| format!("{file}: invalid JSON: {e}"))?;
            let list = root
                .get("domains")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("{file}: no \"domains\" array"))?;
            domains.extend(list.iter().cloned());
        }
        Ok(Protocol { domains })
    }

    fn domain(&self, name: &str) -> Option<&Value> {
        self.domains
            .iter()
            .find(|d| d.get("domain").and_then(Value::as_str) == Some(name))
    }

    /// Looks up `name` in one of a domain's lists ("commands", "events", "types"), whose
    /// entries carry their name under `key` ("name" or "id").
    fn entry(&self, domain: &str, list: &str, key: &str, name: &str) -> Option<&Value> {
        self.domain(domain)?
            .get(list)?
            .as_array()?
            .iter()
            .find(|e| e.get(key).and_then(Value::as_str) == Some(name))
    }

    fn type_def(&self, domain: &str, name: &str) -> Option<&Value> {
        self.entry(domain, "types", "id", name)
    }
}

/// Reads used.txt: one `Domain.method` (a command) or `event Domain.name` per line;
/// `#` starts a comment.
fn parse_used(text: &str) -> Result<BTreeSet<(String, String, Kind)>, String> {
    let mut used = BTreeSet::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (kind, name) = match line.strip_prefix("event ") {
            Some(rest) => (Kind::Event, rest.trim()),
            None => (Kind::Command, line),
        };
        let Some((domain, member)) = name
            .split_once('.')
            .filter(|(d, m)| is_identifier(d) && is_identifier(m))
        else {
            let line = index + 1;
            return Err(format!(
                "used.txt line {line}: expected `Domain.method` or `event Domain.name`, got {raw:?}"
            ));
        };
        if !used.insert((domain.to_string(), member.to_string(), kind)) {
            return Err(format!(
                "used.txt line {}: {name} is listed twice",
                index + 1
            ));
        }
    }
    Ok(used)
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A type reference as (domain, type name).
type TypeKey = (String, String);

struct Generator<'p> {
    protocol: &'p Protocol,
    used: BTreeSet<(String, String, Kind)>,
    /// Every named type that a used command or event reaches.
    types: BTreeSet<TypeKey>,
    /// (domain, type, property) of fields that must be boxed to break a by-value cycle.
    boxed: BTreeSet<(String, String, String)>,
}

impl<'p> Generator<'p> {
    fn new(
        protocol: &'p Protocol,
        used: BTreeSet<(String, String, Kind)>,
    ) -> Result<Generator<'p>, String> {
        for (domain, name, kind) in &used {
            let found = match kind {
                Kind::Command => protocol.entry(domain, "commands", "name", name),
                Kind::Event => protocol.entry(domain, "events", "name", name),
            };
            if found.is_none() {
                let what = match kind {
                    Kind::Command => "command",
                    Kind::Event => "event",
                };
                return Err(format!(
                    "used.txt names {what} {domain}.{name}, which the protocol JSON does not have"
                ));
            }
        }
        Ok(Generator {
            protocol,
            used,
            types: BTreeSet::new(),
            boxed: BTreeSet::new(),
        })
    }

    /// Walks from the used commands and events to every type they reference.
    fn collect_types(&mut self) -> Result<(), String> {
        let mut pending: Vec<TypeKey> = Vec::new();
        for (domain, name, kind) in &self.used {
            let entry = match kind {
                Kind::Command => self.protocol.entry(domain, "commands", "name", name),
                Kind::Event => self.protocol.entry(domain, "events", "name", name),
            };
            let Some(entry) = entry else { continue };
            for list in ["parameters", "returns"] {
                for prop in members(entry, list) {
                    if let Some(key) = reference(domain, prop) {
                        pending.push(key);
                    }
                }
            }
        }
        while let Some(key) = pending.pop() {
            if self.types.contains(&key) {
                continue;
            }
            let def = self
                .protocol
                .type_def(&key.0, &key.1)
                .ok_or_else(|| format!("reference to unknown type {}.{}", key.0, key.1))?;
            if let Some(inner) = reference(&key.0, def) {
                pending.push(inner);
            }
            for prop in members(def, "properties") {
                if let Some(inner) = reference(&key.0, prop) {
                    pending.push(inner);
                }
            }
            self.types.insert(key);
        }
        Ok(())
    }

    /// Marks the fields that hold, by value (not through an array), a type that leads back
    /// to the struct itself; Rust needs a `Box` there to give the struct a finite size.
    fn find_boxed_fields(&mut self) {
        let mut edges: BTreeMap<TypeKey, Vec<(String, TypeKey)>> = BTreeMap::new();
        for key in &self.types {
            let Some(def) = self.protocol.type_def(&key.0, &key.1) else {
                continue;
            };
            for prop in members(def, "properties") {
                if let (Some(target), Some(field)) = (direct_reference(&key.0, prop), name(prop)) {
                    edges
                        .entry(key.clone())
                        .or_default()
                        .push((field.to_string(), target));
                }
            }
        }
        for (from, targets) in &edges {
            for (field, target) in targets {
                if reaches(&edges, target, from) {
                    self.boxed
                        .insert((from.0.clone(), from.1.clone(), field.clone()));
                }
            }
        }
    }

    fn emit(&self) -> Result<String, String> {
        let mut out = String::new();
        out.push_str(HEADER);
        let mut modules: BTreeMap<String, &str> = BTreeMap::new();
        for domain in &self.protocol.domains {
            let Some(name) = domain.get("domain").and_then(Value::as_str) else {
                continue;
            };
            let has_types = self.types.iter().any(|(d, _)| d == name);
            let has_used = self.used.iter().any(|(d, _, _)| d == name);
            if has_types || has_used {
                modules.insert(snake_case(name), name);
            }
        }
        for domain in modules.values() {
            out.push('\n');
            self.emit_domain(&mut out, domain)?;
        }
        Ok(out)
    }

    fn emit_domain(&self, out: &mut String, domain: &str) -> Result<(), String> {
        let def = self
            .protocol
            .domain(domain)
            .ok_or_else(|| format!("unknown domain {domain}"))?;
        let mut module = Module::new(domain);
        for ty in members(def, "types") {
            let Some(id) = ty.get("id").and_then(Value::as_str) else {
                continue;
            };
            if self.types.contains(&(domain.to_string(), id.to_string())) {
                self.emit_type(&mut module, id, ty)?;
            }
        }
        for command in members(def, "commands") {
            let Some(method) = name(command) else {
                continue;
            };
            if self
                .used
                .contains(&(domain.to_string(), method.to_string(), Kind::Command))
            {
                self.emit_command(&mut module, method, command)?;
            }
        }
        for event in members(def, "events") {
            let Some(event_name) = name(event) else {
                continue;
            };
            if self
                .used
                .contains(&(domain.to_string(), event_name.to_string(), Kind::Event))
            {
                self.emit_event(&mut module, event_name, event)?;
            }
        }
        push_doc(out, "", def);
        let module_name = snake_case(domain);
        let items = module.items.join("\n");
        out.push_str(&format!("pub mod {module_name} {{\n{items}}}\n"));
        Ok(())
    }

    fn emit_type(&self, module: &mut Module, id: &str, def: &Value) -> Result<(), String> {
        let kind = def.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "string" && def.get("enum").is_some() {
            return module.push_enum(id, def);
        }
        if kind == "object" && def.get("properties").is_some() {
            let fields = members(def, "properties");
            return self.emit_struct(module, id, id, def, &fields, Shape::Both);
        }
        let target = self.rust_type(module, id, "", def)?;
        let mut item = String::new();
        push_doc(&mut item, "    ", def);
        item.push_str(&format!("    pub type {id} = {target};\n"));
        module.push_item(id, item)
    }

    fn emit_command(&self, module: &mut Module, method: &str, def: &Value) -> Result<(), String> {
        let owner = upper_first(method);
        let params = format!("{owner}Params");
        let returns = format!("{owner}Returns");
        let fields = members(def, "parameters");
        self.emit_struct(module, &params, &owner, def, &fields, Shape::Params)?;
        let fields = members(def, "returns");
        let doc = serde_json::json!({
            "description": format!("What `{}.{method}` returns.", module.domain)
        });
        self.emit_struct(module, &returns, &owner, &doc, &fields, Shape::Returns)?;
        let item = format!(
            "    impl crate::cdp::Command for {params} {{\n        \
             const METHOD: &'static str = \"{}.{method}\";\n        \
             type Returns = {returns};\n    }}\n",
            module.domain
        );
        module.items.push(item);
        Ok(())
    }

    fn emit_event(&self, module: &mut Module, event: &str, def: &Value) -> Result<(), String> {
        let owner = upper_first(event);
        let struct_name = format!("{owner}Event");
        let fields = members(def, "parameters");
        self.emit_struct(module, &struct_name, &owner, def, &fields, Shape::Event)?;
        let item = format!(
            "    impl crate::cdp::Event for {struct_name} {{\n        \
             const NAME: &'static str = \"{}.{event}\";\n    }}\n",
            module.domain
        );
        module.items.push(item);
        Ok(())
    }

    /// Emits a struct with one field per protocol property, followed by the enums that its
    /// properties declare inline (named `<owner><Field>`).
    fn emit_struct(
        &self,
        module: &mut Module,
        struct_name: &str,
        owner: &str,
        def: &Value,
        fields: &[&Value],
        shape: Shape,
    ) -> Result<(), String> {
        let mut item = String::new();
        push_doc(&mut item, "    ", def);
        item.push_str(match shape {
            Shape::Params => "    #[derive(Debug, Clone, Default, serde::Serialize)]\n",
            Shape::Returns | Shape::Event => {
                "    #[derive(Debug, Clone, Default, serde::Deserialize)]\n    #[serde(default)]\n"
            }
            Shape::Both => {
                "    #[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]\n    \
                 #[serde(default)]\n"
            }
        });
        if fields.is_empty() {
            item.push_str(&format!("    pub struct {struct_name} {{}}\n"));
            return module.push_item(struct_name, item);
        }
        let mut body = String::new();
        let mut inline_enums = Vec::new();
        let mut seen = BTreeSet::new();
        for prop in fields {
            let (text, inline) = self.field(module, struct_name, owner, prop, shape, &mut seen)?;
            body.push_str(&text);
            inline_enums.extend(inline);
        }
        item.push_str(&format!("    pub struct {struct_name} {{\n{body}    }}\n"));
        module.push_item(struct_name, item)?;
        for (enum_name, def) in inline_enums {
            module.push_enum(&enum_name, &def)?;
        }
        Ok(())
    }

    /// The text of one field of `emit_struct`'s struct, and the enum the property declares
    /// inline, if any, for the caller to emit after the struct.
    fn field(
        &self,
        module: &Module,
        struct_name: &str,
        owner: &str,
        prop: &Value,
        shape: Shape,
        seen: &mut BTreeSet<String>,
    ) -> Result<(String, Option<(String, Value)>), String> {
        let mut item = String::new();
        let wire = name(prop).ok_or_else(|| format!("{struct_name}: a field has no name"))?;
        let field = field_name(wire);
        if !seen.insert(field.clone()) {
            return Err(format!("{struct_name}: two fields map to `{field}`"));
        }
        let mut ty = self.rust_type(module, owner, wire, prop)?;
        let inline =
            inline_enum_name(owner, wire, prop).map(|enum_name| (enum_name, enum_def(prop)));
        let key = (
            module.domain.clone(),
            struct_name.to_string(),
            wire.to_string(),
        );
        if self.boxed.contains(&key) {
            ty = format!("Box<{ty}>");
        }
        let optional = prop.get("optional").and_then(Value::as_bool) == Some(true);
        if optional {
            ty = format!("Option<{ty}>");
        }
        push_doc(&mut item, "        ", prop);
        if field.trim_start_matches("r#") != wire {
            item.push_str(&format!("        #[serde(rename = \"{wire}\")]\n"));
        }
        if optional && shape != Shape::Returns && shape != Shape::Event {
            item.push_str("        #[serde(skip_serializing_if = \"Option::is_none\")]\n");
        }
        item.push_str(&format!("        pub {field}: {ty},\n"));
        Ok((item, inline))
    }

    /// The Rust type for a property (or a named type's definition). `owner` and `field`
    /// name an inline enum, if the property declares one.
    fn rust_type(
        &self,
        module: &Module,
        owner: &str,
        field: &str,
        prop: &Value,
    ) -> Result<String, String> {
        if let Some(target) = prop.get("$ref").and_then(Value::as_str) {
            return Ok(match target.split_once('.') {
                Some((domain, ty)) if domain != module.domain => {
                    format!("super::{}::{ty}", snake_case(domain))
                }
                Some((_, ty)) => ty.to_string(),
                None => target.to_string(),
            });
        }
        let kind = prop.get("type").and_then(Value::as_str).unwrap_or("");
        Ok(match kind {
            "string" if prop.get("enum").is_some() => inline_enum_name(owner, field, prop)
                .ok_or_else(|| format!("{owner}.{field}: an enum needs a field name"))?,
            "string" | "binary" => "String".to_string(),
            "integer" => "i64".to_string(),
            "number" => "f64".to_string(),
            "boolean" => "bool".to_string(),
            "any" | "object" => "serde_json::Value".to_string(),
            "array" => {
                let items = prop
                    .get("items")
                    .ok_or_else(|| format!("{owner}.{field}: an array without items"))?;
                format!("Vec<{}>", self.rust_type(module, owner, field, items)?)
            }
            other => return Err(format!("{owner}.{field}: unsupported type {other:?}")),
        })
    }
}

/// Which way a struct travels, which decides its derives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Command parameters: only sent.
    Params,
    /// Command results: only received.
    Returns,
    /// Event parameters: only received.
    Event,
    /// Protocol types: may go either way.
    Both,
}

/// The name of the enum a property declares inline, if it does (directly or for its items).
fn inline_enum_name(owner: &str, field: &str, prop: &Value) -> Option<String> {
    let def = enum_def(prop);
    def.get("enum")?;
    if def.get("$ref").is_some() {
        return None;
    }
    Some(format!("{owner}{}", upper_first(field)))
}

/// The part of a property that may carry an inline `enum`: the property or its items.
fn enum_def(prop: &Value) -> Value {
    match prop.get("items") {
        Some(items) if prop.get("type").and_then(Value::as_str) == Some("array") => {
            let mut def = items.clone();
            if let (Some(map), Some(doc)) = (def.as_object_mut(), prop.get("description")) {
                map.insert("description".to_string(), doc.clone());
            }
            def
        }
        _ => prop.clone(),
    }
}

/// The named type a property refers to, through an array or not.
fn reference(domain: &str, prop: &Value) -> Option<TypeKey> {
    direct_reference(domain, prop).or_else(|| direct_reference(domain, prop.get("items")?))
}

/// The named type a property holds by value (arrays excluded).
fn direct_reference(domain: &str, prop: &Value) -> Option<TypeKey> {
    let target = prop.get("$ref")?.as_str()?;
    Some(match target.split_once('.') {
        Some((d, t)) => (d.to_string(), t.to_string()),
        None => (domain.to_string(), target.to_string()),
    })
}

/// Whether `from` leads to `to` through by-value fields.
fn reaches(
    edges: &BTreeMap<TypeKey, Vec<(String, TypeKey)>>,
    from: &TypeKey,
    to: &TypeKey,
) -> bool {
    let mut seen = BTreeSet::new();
    let mut pending = vec![from.clone()];
    while let Some(key) = pending.pop() {
        if &key == to {
            return true;
        }
        if !seen.insert(key.clone()) {
            continue;
        }
        for (_, next) in edges.get(&key).into_iter().flatten() {
            pending.push(next.clone());
        }
    }
    false
}

fn members<'v>(def: &'v Value, list: &str) -> Vec<&'v Value> {
    def.get(list)
        .and_then(Value::as_array)
        .map(|items| items.iter().collect())
        .unwrap_or_default()
}

fn name(def: &Value) -> Option<&str> {
    def.get("name").and_then(Value::as_str)
}
