//! The smallest value that satisfies a JSON Schema: default tool arguments and default
//! `json_schema` answers.
//!
//! "Smallest" is the obvious choice at each step: required properties only, `minItems` items,
//! `minLength` characters (`"a"` repeated), the number nearest zero inside the bounds, the first
//! `enum` value, the first `anyOf`/`oneOf` branch, the first listed `type`. Local `$ref`s
//! (`#/$defs/…`, `#/definitions/…`) are followed; `allOf` branches are merged. A `pattern` cannot
//! be satisfied in general and is ignored; a few common `format`s get a canned valid value.

use serde_json::{Map, Number, Value, json};

/// Deeper than this (a recursive `$ref`), the generator gives up with `null`.
const MAX_DEPTH: usize = 32;

/// A minimal instance of `schema` (a JSON Schema document).
pub fn minimal_instance(schema: &Value) -> Value {
    Generator { root: schema }.instance(schema, 0)
}

struct Generator<'a> {
    root: &'a Value,
}

impl<'a> Generator<'a> {
    fn instance(&self, schema: &Value, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let Some(obj) = schema.as_object() else {
            // `true` accepts anything; `false` accepts nothing, so any answer is as good.
            return Value::Null;
        };
        if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
            return match self.resolve(target) {
                Some(resolved) => self.instance(resolved, depth + 1),
                None => Value::Null,
            };
        }
        if let Some(value) = obj.get("const") {
            return value.clone();
        }
        if let Some(first) = obj
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            return first.clone();
        }
        if let Some(branches) = obj.get("allOf").and_then(Value::as_array) {
            let merged = self.merge_all_of(obj, branches);
            return self.instance(&merged, depth + 1);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(first) = obj
                .get(key)
                .and_then(Value::as_array)
                .and_then(|b| b.first())
            {
                return self.instance(first, depth + 1);
            }
        }
        match schema_type(obj) {
            "object" => self.object(obj, depth),
            "array" => self.array(obj, depth),
            "string" => string(obj),
            "integer" => integer(obj),
            "number" => number(obj),
            "boolean" => Value::Bool(false),
            _ => Value::Null,
        }
    }

    fn object(&self, obj: &Map<String, Value>, depth: usize) -> Value {
        let properties = obj.get("properties").and_then(Value::as_object);
        let mut out = Map::new();
        for name in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let value = match properties.and_then(|p| p.get(name)) {
                Some(prop) => self.instance(prop, depth + 1),
                None => Value::Null,
            };
            out.insert(name.to_owned(), value);
        }
        Value::Object(out)
    }

    fn array(&self, obj: &Map<String, Value>, depth: usize) -> Value {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        // Draft 2020-12 `prefixItems`, or the older tuple form of `items`.
        let prefix = obj
            .get("prefixItems")
            .or_else(|| obj.get("items").filter(|i| i.is_array()))
            .and_then(Value::as_array);
        let rest = obj.get("items").filter(|i| i.is_object() || i.is_boolean());
        (0..min)
            .map(|k| match prefix.and_then(|p| p.get(k)) {
                Some(item) => self.instance(item, depth + 1),
                None => rest.map_or(Value::Null, |item| self.instance(item, depth + 1)),
            })
            .collect()
    }

    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        self.root.pointer(pointer)
    }

    /// One schema holding the union of the branches' properties and requirements.
    fn merge_all_of(&self, obj: &Map<String, Value>, branches: &[Value]) -> Value {
        let mut merged = obj.clone();
        merged.remove("allOf");
        let mut properties = merged
            .remove("properties")
            .and_then(|p| p.as_object().cloned())
            .unwrap_or_default();
        let mut required: Vec<Value> = merged
            .remove("required")
            .and_then(|r| r.as_array().cloned())
            .unwrap_or_default();
        for branch in branches {
            let branch = match branch.get("$ref").and_then(Value::as_str) {
                Some(target) => self.resolve(target).unwrap_or(branch),
                None => branch,
            };
            let Some(branch) = branch.as_object() else {
                continue;
            };
            for (key, value) in branch {
                match key.as_str() {
                    "properties" => {
                        for (name, prop) in value.as_object().into_iter().flatten() {
                            properties
                                .entry(name.clone())
                                .or_insert_with(|| prop.clone());
                        }
                    }
                    "required" => {
                        for name in value.as_array().into_iter().flatten() {
                            if !required.contains(name) {
                                required.push(name.clone());
                            }
                        }
                    }
                    _ => {
                        merged.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
            }
        }
        if !properties.is_empty() {
            merged.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            merged.insert("required".into(), Value::Array(required));
        }
        Value::Object(merged)
    }
}

/// The schema's `type`, the first one when it lists several, or the type its keywords imply.
fn schema_type(obj: &Map<String, Value>) -> &str {
    match obj.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(types)) => types.first().and_then(Value::as_str).unwrap_or("null"),
        _ if obj.contains_key("properties") || obj.contains_key("required") => "object",
        _ if obj.contains_key("items") || obj.contains_key("prefixItems") => "array",
        _ if obj.contains_key("minLength") || obj.contains_key("format") => "string",
        _ if obj.contains_key("minimum") || obj.contains_key("maximum") => "number",
        // An unconstrained schema accepts anything; an empty object reads best as an answer.
        _ => "object",
    }
}

fn string(obj: &Map<String, Value>) -> Value {
    let canned = match obj.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("1970-01-01T00:00:00Z"),
        Some("date") => Some("1970-01-01"),
        Some("time") => Some("00:00:00Z"),
        Some("email") => Some("a@example.com"),
        Some("uri" | "url" | "iri") => Some("urn:a"),
        Some("uuid") => Some("00000000-0000-0000-0000-000000000000"),
        Some("ipv4") => Some("127.0.0.1"),
        Some("ipv6") => Some("::1"),
        Some("hostname") => Some("localhost"),
        _ => None,
    };
    if let Some(value) = canned {
        return json!(value);
    }
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    Value::String("a".repeat(min))
}

fn bound(obj: &Map<String, Value>, key: &str) -> Option<f64> {
    obj.get(key).and_then(Value::as_f64)
}

fn integer(obj: &Map<String, Value>) -> Value {
    let low = match (bound(obj, "minimum"), bound(obj, "exclusiveMinimum")) {
        (Some(m), _) => Some(m.ceil()),
        (None, Some(x)) => Some(x.floor() + 1.0),
        _ => None,
    };
    let high = match (bound(obj, "maximum"), bound(obj, "exclusiveMaximum")) {
        (Some(m), _) => Some(m.floor()),
        (None, Some(x)) => Some(x.ceil() - 1.0),
        _ => None,
    };
    let mut value = nearest_zero(low, high);
    if let Some(step) = bound(obj, "multipleOf").filter(|s| *s > 0.0) {
        value = (value / step).ceil() * step;
    }
    json!(value as i64)
}

fn number(obj: &Map<String, Value>) -> Value {
    let low = bound(obj, "minimum").or_else(|| bound(obj, "exclusiveMinimum").map(|x| x + 1.0));
    let high = bound(obj, "maximum").or_else(|| bound(obj, "exclusiveMaximum").map(|x| x - 1.0));
    let mut value = nearest_zero(low, high);
    if let Some(step) = bound(obj, "multipleOf").filter(|s| *s > 0.0) {
        value = (value / step).ceil() * step;
    }
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// Zero if the bounds allow it, else the bound nearest to zero.
fn nearest_zero(low: Option<f64>, high: Option<f64>) -> f64 {
    match (low, high) {
        (Some(l), _) if l > 0.0 => l,
        (_, Some(h)) if h < 0.0 => h,
        _ => 0.0,
    }
}
