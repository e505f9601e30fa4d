//! Whether a record holds a secret, found without writing it out: a
//! serializer that looks at every string (map keys included) and nothing
//! else — no JSON, no number formatting, no allocation — and stops at the
//! first hit. Nearly every event holds no secret, so this is all the
//! redaction most events cost.

use serde::ser::{self, Serialize};

/// Stops the scan: a secret was found (or a type could not be walked,
/// which the caller treats the same way, to be safe).
#[derive(Debug)]
pub(super) struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("scan stopped")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// Walks a value, calling `found` on each string until it says yes.
pub(super) struct Scan<F: Fn(&str) -> bool> {
    pub(super) found: F,
}

impl<F: Fn(&str) -> bool> Scan<F> {
    /// True when some string in `value` satisfies `found`.
    pub(super) fn any<T: Serialize + ?Sized>(&mut self, value: &T) -> bool {
        value.serialize(self).is_err()
    }
}

/// The scalar methods: nothing to look at.
macro_rules! skip {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), Stop> { Ok(()) })*
    };
}

impl<F: Fn(&str) -> bool> ser::Serializer for &mut Scan<F> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    skip!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_bytes: &[u8], serialize_unit_struct: &'static str);

    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        if (self.found)(v) { Err(Stop) } else { Ok(()) }
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
}

/// The compound parts: each element, key and field is walked the same way.
macro_rules! walk {
    ($($trait:ident: $method:ident),* $(,)?) => {
        $(impl<F: Fn(&str) -> bool> ser::$trait for &mut Scan<F> {
            type Ok = ();
            type Error = Stop;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        })*
    };
}

walk!(
    SerializeSeq: serialize_element,
    SerializeTuple: serialize_element,
    SerializeTupleStruct: serialize_field,
    SerializeTupleVariant: serialize_field,
);

impl<F: Fn(&str) -> bool> ser::SerializeMap for &mut Scan<F> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

macro_rules! fields {
    ($($trait:ident),* $(,)?) => {
        $(impl<F: Fn(&str) -> bool> ser::$trait for &mut Scan<F> {
            type Ok = ();
            type Error = Stop;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<(), Stop> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);
