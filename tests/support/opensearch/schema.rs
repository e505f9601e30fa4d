//! A minimal JSON-schema checker over the subset the OpenSearch API
//! specification's request schemas use (`$ref`, `type`, `properties`,
//! `required`, `additionalProperties`, `items`, `enum`, `const`, `allOf`,
//! `anyOf`, `oneOf`, `not`, `minProperties`, `maxProperties`). `format`,
//! `pattern` and `propertyNames` are not checked. Stricter than JSON
//! Schema in one way, on purpose: an object schema that lists its
//! properties and says nothing of others rejects unknown keys, so a
//! misspelt key in a request fails the test instead of passing unseen.
//! (A JSON-schema crate would pull in a regex engine and more for this.)

use std::collections::BTreeSet;

use serde_json::Value;

pub struct Schema {
    root: Value,
}

impl Schema {
    /// A bundled schema of `tests/fixtures/opensearch/` (see bundle.py there).
    pub fn fixture(name: &str) -> Self {
        let path = format!("{}/tests/fixtures/opensearch/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        Self { root: serde_json::from_str(&text).unwrap() }
    }

    /// What is wrong with `instance`, one line per problem (empty: valid).
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        let mut out = Vec::new();
        self.check(&self.root, instance, "$", true, &mut out);
        out
    }

    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let key = r.strip_prefix("#/definitions/").unwrap_or_else(|| panic!("unbundled $ref {r}"));
                let target = self.root.pointer(&format!("/definitions/{}", key.replace('~', "~0").replace('/', "~1")));
                self.resolve(target.unwrap_or_else(|| panic!("no definition {key}")))
            }
            None => schema,
        }
    }

    fn check(&self, schema: &Value, v: &Value, at: &str, strict: bool, out: &mut Vec<String>) {
        let schema = self.resolve(schema);
        match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return out.push(format!("{at}: no value is allowed here")),
            _ => {}
        }
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !types.iter().any(|t| has_type(v, t)) {
                return out.push(format!("{at}: expected {}, got {v}", types.join(" or ")));
            }
        }
        if let Some(e) = schema.get("enum").and_then(Value::as_array)
            && !e.contains(v)
        {
            out.push(format!("{at}: {v} is not one of {}", Value::Array(e.clone())));
        }
        if let Some(c) = schema.get("const")
            && c != v
        {
            out.push(format!("{at}: expected {c}, got {v}"));
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for s in all {
                self.check(s, v, at, false, out);
            }
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array)
            && !any.iter().any(|s| self.passes(s, v, at))
        {
            out.push(format!("{at}: matches none of anyOf's {} schemas", any.len()));
        }
        if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
            let n = one.iter().filter(|s| self.passes(s, v, at)).count();
            if n != 1 {
                out.push(format!("{at}: matches {n} of oneOf's {} schemas (exactly one expected): {v}", one.len()));
            }
        }
        if let Some(not) = schema.get("not")
            && self.passes(not, v, at)
        {
            out.push(format!("{at}: matches a schema it must not"));
        }
        if let Value::Array(items) = v
            && let Some(item) = schema.get("items")
        {
            for (i, x) in items.iter().enumerate() {
                self.check(item, x, &format!("{at}[{i}]"), true, out);
            }
        }
        if let Value::Object(map) = v {
            self.check_object(schema, map, at, strict, out);
        }
    }

    fn check_object(
        &self,
        schema: &Value,
        map: &serde_json::Map<String, Value>,
        at: &str,
        strict: bool,
        out: &mut Vec<String>,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        for (k, x) in map {
            if let Some(s) = props.and_then(|p| p.get(k)) {
                self.check(s, x, &format!("{at}.{k}"), true, out);
            }
        }
        for r in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            if let Some(r) = r.as_str()
                && !map.contains_key(r)
            {
                out.push(format!("{at}: missing required `{r}`"));
            }
        }
        let n = map.len() as u64;
        if schema.get("minProperties").and_then(Value::as_u64).is_some_and(|m| n < m) {
            out.push(format!("{at}: too few keys ({n})"));
        }
        if schema.get("maxProperties").and_then(Value::as_u64).is_some_and(|m| n > m) {
            out.push(format!("{at}: too many keys ({n})"));
        }
        let Some((known, open)) = self.declared(schema) else { return };
        for (k, x) in map.iter().filter(|(k, _)| !known.contains(k.as_str())) {
            match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => out.push(format!("{at}: unknown key `{k}`")),
                Some(extra) if extra.is_object() => self.check(extra, x, &format!("{at}.{k}"), true, out),
                _ if strict && !open => out.push(format!("{at}: unknown key `{k}` (not in the specification)")),
                _ => {}
            }
        }
    }

    /// The property names an object schema declares (through `allOf` and
    /// `$ref`), and whether it admits others; `None` when it lists none.
    fn declared(&self, schema: &Value) -> Option<(BTreeSet<String>, bool)> {
        let schema = self.resolve(schema);
        let mut names = BTreeSet::new();
        let mut open = matches!(schema.get("additionalProperties"), Some(Value::Bool(true)) | Some(Value::Object(_)));
        let mut any = false;
        if let Some(p) = schema.get("properties").and_then(Value::as_object) {
            names.extend(p.keys().cloned());
            any = true;
        }
        for s in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            if let Some((n, o)) = self.declared(s) {
                names.extend(n);
                open |= o;
                any = true;
            } else {
                open = true;
            }
        }
        any.then_some((names, open))
    }

    fn passes(&self, schema: &Value, v: &Value, at: &str) -> bool {
        let mut errs = Vec::new();
        self.check(schema, v, at, true, &mut errs);
        errs.is_empty()
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}
