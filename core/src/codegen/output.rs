//! Output structs as structured content: each field to JSON, absent optional
//! fields left out.

use serde_json::{Map, Value};

/// A generated output struct: its fields as the `structuredContent` object.
pub trait Structured {
    /// The fields as a JSON object, absent optional fields left out.
    fn to_structured(&self) -> Value;
}

/// A value of an output field as JSON.
pub trait ToJson {
    /// The value as JSON; `Null` means "leave the field out".
    fn to_json(&self) -> Value;
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl ToJson for i64 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl ToJson for f64 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl ToJson for bool {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

/// Puts one output field into the structured object, leaving out absent ones.
pub fn put_field(map: &mut Map<String, Value>, name: &str, value: &impl ToJson) {
    let value = value.to_json();
    if !value.is_null() {
        map.insert(name.to_owned(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_fields_are_left_out() {
        let mut map = Map::new();
        put_field(&mut map, "x", &Some(3_i64));
        put_field(&mut map, "y", &None::<String>);
        put_field(&mut map, "z", &vec![Some(true)]);
        assert_eq!(Value::Object(map), serde_json::json!({"x": 3, "z": [true]}));
    }
}
