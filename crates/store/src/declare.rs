//! How a read resource is declared once, in a few lines: the [`resource!`](crate::resource) macro (its row, its
//! [`ListSpec`](crate::list::ListSpec) and its rendering) and [`slice_of!`](crate::slice_of) (a resource that is a
//! slice of another's table), with the conversions their fields name.

/// Declares a read resource once: its marker type, its row (one field per selected SQL expression, `t.id` always
/// first), its [`ListSpec`], and how each column becomes a field of its wire shape. `audit: standard` stands for the
/// usual audit columns (`t.created_at`, `t.updated_at`, `t.deleted_at`, `t.active`).
///
/// Each field is `name: RowType = "sql expression" => conversion`, where the conversion is one of
/// `plain` (as stored), `at` / `at_opt` (epoch ms to an offset timestamp), `plain_at` (to the v2 plain timestamp),
/// `hectares` (rounded to hundredths), `hectares_text` (a two-decimal string), `ids` (a comma-separated list of
/// integers, e.g. from `string_agg`, to an array) or `words` (a comma-separated text to an array of strings).
#[macro_export]
macro_rules! resource {
    (
        $(#[$meta:meta])*
        $marker:ident, $row:ident => $item:path {
            name: $name:literal,
            from: $from:literal,
            scoping: $scoping:ident,
            $(condition: $condition:literal,)?
            audit: standard,
            fields { $($fields:tt)* }
        }
    ) => {
        $crate::resource! {
            $(#[$meta])*
            $marker, $row => $item {
                name: $name,
                from: $from,
                scoping: $scoping,
                $(condition: $condition,)?
                created: Some("t.created_at"),
                updated: Some("t.updated_at"),
                deleted: Some("t.deleted_at"),
                active: Some("t.active"),
                fields { $($fields)* }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $marker:ident, $row:ident => $item:path {
            name: $name:literal,
            from: $from:literal,
            scoping: $scoping:ident,
            $(condition: $condition:literal,)?
            created: $created:expr,
            updated: $updated:expr,
            deleted: $deleted:expr,
            active: $active:expr,
            fields { $($field:ident : $ty:ty = $sql:literal => $conv:ident),* $(,)? }
        }
    ) => {
        $(#[$meta])*
        pub struct $marker;

        $crate::row_by_position! {
            #[doc = concat!("One row of `", $name, "` as selected.")]
            #[derive(Debug)]
            pub struct $row {
                pub(crate) id: i64,
                $(pub(crate) $field: $ty,)*
            }
        }

        impl $crate::list::Resource for $marker {
            type Row = $row;
            type Item = $item;
            type Related = ();
            const SPEC: $crate::list::ListSpec = $crate::list::ListSpec {
                name: $name,
                from: $from,
                columns: concat!("t.id AS id" $(, ", ", $sql, " AS ", stringify!($field))*),
                scoping: $crate::list::Scoping::$scoping,
                condition: $crate::resource!(@condition $($condition)?),
                created: $created,
                updated: $updated,
                deleted: $deleted,
                active: $active,
            };

            fn id(row: &$row) -> i64 {
                row.id
            }

            #[allow(unused_variables, reason = "catalogues without timestamps do not need the renderer")]
            fn render(row: $row, _related: (), render: &$crate::Render) -> $item {
                $item {
                    id: row.id,
                    $($field: $crate::resource!(@convert $conv, row.$field, render),)*
                }
            }
        }
    };
    (@condition) => { None };
    (@condition $condition:literal) => { Some($condition) };
    (@convert plain, $value:expr, $render:ident) => { $value };
    (@convert at, $value:expr, $render:ident) => { $render.at($value) };
    (@convert at_opt, $value:expr, $render:ident) => { $render.at_opt($value) };
    (@convert plain_at, $value:expr, $render:ident) => { $render.plain($value) };
    (@convert hectares, $value:expr, $render:ident) => { domain::round_hectares($value) };
    (@convert hectares_text, $value:expr, $render:ident) => { format!("{:.2}", $value) };
    (@convert ids, $value:expr, $render:ident) => { $crate::declare::parse_ids($value.as_deref()) };
    (@convert words, $value:expr, $render:ident) => { $crate::declare::parse_words(&$value) };
}

/// Reads a comma-separated list of words; empty means none.
pub fn parse_words(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Reads a comma-separated list of integers, as `string_agg` returns them; absent means empty.
pub fn parse_ids(list: Option<&str>) -> Vec<i64> {
    list.unwrap_or_default()
        .split(',')
        .filter_map(|id| id.trim().parse().ok())
        .collect()
}

/// Declares a resource that is a slice of another's table: the same row and wire shape, its own name and fixed
/// condition (e.g. planting progress within all progress).
#[macro_export]
macro_rules! slice_of {
    ($(#[$meta:meta])* $marker:ident = $whole:ty, $name:literal where $condition:literal) => {
        $(#[$meta])*
        pub struct $marker;

        impl $crate::list::Resource for $marker {
            type Row = <$whole as $crate::list::Resource>::Row;
            type Item = <$whole as $crate::list::Resource>::Item;
            type Related = <$whole as $crate::list::Resource>::Related;
            const SPEC: $crate::list::ListSpec = $crate::list::ListSpec {
                name: $name,
                condition: Some($condition),
                ..<$whole as $crate::list::Resource>::SPEC
            };

            fn render(row: Self::Row, related: Self::Related, render: &$crate::Render) -> Self::Item {
                <$whole as $crate::list::Resource>::render(row, related, render)
            }

            fn id(row: &Self::Row) -> i64 {
                <$whole as $crate::list::Resource>::id(row)
            }
        }
    };
}
