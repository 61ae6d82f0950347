//! The HTTP layer's one look at a request body before rmcp parses it: for
//! each JSON-RPC message, what the scope check and `compat` need (the method,
//! a tool call's name, the shape of its arguments, the 2025-11-25 `task`
//! param), read without keeping the rest, so that a large body is neither
//! copied nor parsed again.

use super::generation::Generation;

/// A body: one JSON-RPC message, or a batch of them.
pub(super) enum OneOrMany {
    One(Peek),
    Many(Vec<Peek>),
}

// Told apart by the value's first token, read as it streams: serde's
// `untagged` would first buffer the whole body (arguments and all) into a
// tree of owned values to try each variant on, a copy of what the peek
// exists to skip, and most of its cost per request.
impl<'de> serde::Deserialize<'de> for OneOrMany {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Body;
        impl<'de> serde::de::Visitor<'de> for Body {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message or a batch of them")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<OneOrMany, A::Error> {
                Peek::of_map(map).map(OneOrMany::One)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<OneOrMany, A::Error> {
                let mut batch = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(Object(message)) = seq.next_element::<Object>()? {
                    batch.push(message);
                }
                Ok(OneOrMany::Many(batch))
            }
        }
        d.deserialize_any(Body)
    }
}

/// A message of a batch: an object only. A derived struct reads an array as
/// its fields in order, and `[["x","tools/call",…]]` is no message.
struct Object(Peek);

impl<'de> serde::Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Message;
        impl<'de> serde::de::Visitor<'de> for Message {
            type Value = Object;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message (an object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Object, A::Error> {
                Peek::of_map(map).map(Object)
            }
        }
        d.deserialize_map(Message)
    }
}

/// The parts of a JSON-RPC message the HTTP layer looks at before rmcp (here,
/// the scope check of `auth`, and `compat`); the rest is skipped, not kept,
/// so a large body is not copied.
#[derive(Debug, serde::Deserialize)]
pub(in crate::server) struct Peek {
    #[serde(default)]
    pub(in crate::server) id: serde_json::Value,
    #[serde(default)]
    pub(in crate::server) method: Option<String>,
    #[serde(default)]
    pub(in crate::server) params: Option<PeekParams>,
}

/// The params of a [`Peek`]ed message: a tool call's name, the shape of its
/// arguments, and the 2025-11-25 `task` param that rmcp drops (read only
/// when 2025-11-25's tasks are built).
#[derive(Debug, serde::Deserialize)]
pub(in crate::server) struct PeekParams {
    #[serde(default)]
    pub(in crate::server) name: Option<String>,
    #[serde(default)]
    pub(in crate::server) arguments: Option<Shape>,
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    #[serde(default)]
    pub(in crate::server) task: Option<serde_json::Value>,
    #[serde(default, rename = "_meta")]
    pub(in crate::server) meta: Option<PeekMeta>,
}

/// The part of a message's `_meta` the HTTP layer reads: the protocol
/// version a 2026-07-28 request names there. Any value: rmcp reads `_meta` as
/// a map of anything, so a version that is no string must not make the peek
/// fail (a message that cannot be peeked at skips the HTTP checks).
#[derive(Debug, serde::Deserialize)]
pub(in crate::server) struct PeekMeta {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<serde_json::Value>,
}

impl Peek {
    /// The peek of a message read as the map it must be.
    fn of_map<'de, A: serde::de::MapAccess<'de>>(map: A) -> Result<Peek, A::Error> {
        serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))
    }

    /// The generation the message names in its `_meta`: stateless for a
    /// 2026-07-28 request, a session's otherwise.
    pub(in crate::server) fn generation(&self) -> Generation {
        let version = self
            .params
            .as_ref()
            .and_then(|p| p.meta.as_ref())
            .and_then(|m| serde_json::from_value(m.protocol_version.clone()?).ok());
        Generation::of_version(version)
    }
}

/// Whether a JSON value is an object, read without keeping it.
#[derive(Debug)]
pub(in crate::server) enum Shape {
    Object,
    Other(&'static str),
}

impl<'de> serde::Deserialize<'de> for Shape {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Kind;
        impl<'de> serde::de::Visitor<'de> for Kind {
            type Value = Shape;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Shape, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Shape::Object)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Shape, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Shape::Other("an array"))
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::Other("a string"))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Other("a boolean"))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Other("a number"))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Other("a number"))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Other("a number"))
            }
        }
        d.deserialize_any(Kind)
    }
}
