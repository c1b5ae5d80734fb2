//! The module being emitted: its items, in order, with a check that no two share a name.

use super::names::{push_doc, snake_case, variant_name};
use serde_json::Value;
use std::collections::BTreeSet;

/// The items of one generated module, with a check that no two items share a name.
pub(super) struct Module {
    pub(super) domain: String,
    names: BTreeSet<String>,
    pub(super) items: Vec<String>,
}

impl Module {
    pub(super) fn new(domain: &str) -> Module {
        Module {
            domain: domain.to_string(),
            names: BTreeSet::new(),
            items: Vec::new(),
        }
    }

    pub(super) fn push_item(&mut self, item_name: &str, text: String) -> Result<(), String> {
        if !self.names.insert(item_name.to_string()) {
            return Err(format!(
                "two items named {item_name} in module {}",
                snake_case(&self.domain)
            ));
        }
        self.items.push(text);
        Ok(())
    }

    /// A string enum, written as a `string_enum!` invocation (the macro is in the header).
    pub(super) fn push_enum(&mut self, enum_name: &str, def: &Value) -> Result<(), String> {
        let values = def
            .get("enum")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{enum_name}: enum without values"))?;
        let mut item = String::from("    string_enum! {\n");
        push_doc(&mut item, "        ", def);
        item.push_str(&format!("        {enum_name} {{\n"));
        let mut variants = BTreeSet::new();
        for value in values {
            let wire = value
                .as_str()
                .ok_or_else(|| format!("{enum_name}: a value that is not a string"))?;
            let variant = variant_name(wire);
            if variant == "Unrecognized" || !variants.insert(variant.clone()) {
                return Err(format!(
                    "{enum_name}: value {wire:?} gives a clashing variant"
                ));
            }
            item.push_str(&format!("            {variant} = \"{wire}\",\n"));
        }
        item.push_str("        }\n    }\n");
        self.push_item(enum_name, item)
    }
}
