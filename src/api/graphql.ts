/** Stub (issue 21): the GraphQL segmentation service client and its typed operations. */
export {};
