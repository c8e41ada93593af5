"""Pure array functions computing evaluation measures."""
