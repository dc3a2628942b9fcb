/**
 * A section that throws while rendering shows 'Something went wrong and we could not render
 * this section' and leaves the rest of the report usable. The app's boundary already does
 * this (src/components/ErrorBoundary.tsx); it is re-exported here so report code takes every
 * section building block from one folder.
 */
export { SECTION_RENDER_ERROR_MESSAGE, SectionErrorBoundary } from '../../components/ErrorBoundary';
