"""movement ops."""
