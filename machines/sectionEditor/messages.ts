/** Texts of the section editor that models/customSections.ts does not give. */

/** The report the section belongs to could not be read. */
export const REPORT_LOAD_FAILURE = 'We could not fetch the report this section belongs to';

/** The section being edited is not in the report (deleted meanwhile, or a wrong link). */
export const SECTION_NOT_FOUND = 'This section is not in the report any more';

/** The section is one of the product's charts: its calculation is not a custom one. */
export const NOT_A_CUSTOM_SECTION = 'This section is one of the product’s charts: change it from its chart settings on the report';

/** The preview could not be calculated and the server said nothing more. */
export const PREVIEW_FAILURE = 'We could not calculate the preview';
