/** Stub (issue 21). */
export {};
