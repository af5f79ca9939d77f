//! Operations: contractors, machines, applicators, warehouses, voucher types, labour types, work orders, background jobs.
