/**
 * The business constants and limits of the product specification (section 9 of both
 * documents, plus the few numbers other sections fix). Client and server read them from
 * here, so a delay or a limit is never a literal in a machine, a view or a route.
 *
 * Durations are in milliseconds and carry `_MS` in their name; sizes in CSS pixels `_PX`.
 */

// ---------------------------------------------------------------------------------------
// API

export const API_VERSION = 11;
/** Every HTTP call goes through the versioned API. */
export const API_BASE_PATH = `/api/v${API_VERSION}` as const;

/** Dates are sent to the API as yyyy-MM-dd (dayjs format string). */
export const API_DATE_FORMAT = 'YYYY-MM-DD';

/** Where customers write for help (getting started, failure messages with a get-in-touch link). */
export const HELP_EMAIL = 'help@subscope.dev';

// ---------------------------------------------------------------------------------------
// Toasts

/** Every kind of toast the product shows, named for the situation. */
export type ToastKind =
  | 'error'
  | 'success'
  | 'importNotice'
  | 'exportStarted'
  | 'exportStartFailure'
  | 'exportComplete'
  | 'clipboardCopy'
  | 'connectionLost'
  | 'connectionReestablished'
  | 'presentHotKeys'
  | 'filterWarning'
  | 'ruleAdded'
  | 'syncComplete'
  | 'invoicesProcessing';

/**
 * How long each toast stays, in ms; `false` means it stays until closed or replaced
 * (the connection-lost notice is replaced by 'Connection re-established'; the
 * export-complete toast carries a download action and has no timeout).
 */
export const TOAST_AUTO_CLOSE_MS = {
  error: 10_000,
  success: 1_000,
  importNotice: 30_000,
  exportStarted: 5_000,
  exportStartFailure: 30_000,
  exportComplete: false,
  clipboardCopy: 3_000,
  connectionLost: false,
  connectionReestablished: 2_000,
  presentHotKeys: 3_500,
  filterWarning: 4_000,
  ruleAdded: 2_000,
  syncComplete: 10_000,
  invoicesProcessing: 30_000,
} as const satisfies Record<ToastKind, number | false>;

/** A failed button action makes the button wiggle for this long. */
export const BUTTON_FAILURE_WIGGLE_MS = 1_000;

// ---------------------------------------------------------------------------------------
// CSV import of payments

/** Status polling of a CSV import gives up after this many polls. */
export const CSV_IMPORT_MAX_POLLS = 1_000;

export interface PollIntervalStep {
  /** The step applies to polls numbered up to and including this one (1-based). */
  readonly throughPoll: number;
  readonly intervalMs: number;
}

/** 3 s for the first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s. */
/**
 * While a live channel carries an import's progress, its status is still polled this often: a
 * safety net for an event the channel missed. Not in the spec; ours.
 */
export const LIVE_SAFETY_POLL_MS = 30_000;

export const CSV_IMPORT_POLL_SCHEDULE: readonly PollIntervalStep[] = [
  { throughPoll: 20, intervalMs: 3_000 },
  { throughPoll: 70, intervalMs: 10_000 },
  { throughPoll: 170, intervalMs: 20_000 },
  { throughPoll: Number.POSITIVE_INFINITY, intervalMs: 60_000 },
];

/** The multipart column_order of POST /subscriptions/csv_import. */
export const CSV_IMPORT_COLUMN_ORDER = ['customer_id', 'started_at', 'ended_at', 'monthly_amount'] as const;

/**
 * Every field of the subscription CSV import mapping, in the order the import page lists them:
 * the spec's eleven on their default columns, then the total value (the alternative to the
 * monthly amount) and a discount (its monthly amount, its kind, a finite one's months).
 */
export const SUBSCRIPTION_CSV_FIELDS = [
  'customer_id',
  'invoice_number',
  'started_at',
  'ended_at',
  'months',
  'monthly_amount',
  'total_value',
  'revenue_type',
  'currency',
  'product',
  'customer_name',
  'units',
  'discount_amount',
  'discount_kind',
  'discount_months',
] as const;

export type SubscriptionCsvField = (typeof SUBSCRIPTION_CSV_FIELDS)[number];

/** Default column index of the spec's fields in the subscription CSV import mapping (the others start unmapped). */
export const SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX = {
  customer_id: 0,
  invoice_number: 1,
  started_at: 2,
  ended_at: 3,
  months: 5,
  monthly_amount: 6,
  revenue_type: 7,
  currency: 8,
  product: 9,
  customer_name: 10,
  units: 11,
} as const satisfies Partial<Record<SubscriptionCsvField, number>>;

/** How the import page names each field; the server's row messages start with these. */
export const SUBSCRIPTION_CSV_FIELD_LABELS: Record<SubscriptionCsvField, string> = {
  customer_id: 'Customer ID',
  invoice_number: 'Invoice number',
  started_at: 'Started at',
  ended_at: 'Ended at',
  months: 'Months',
  monthly_amount: 'Monthly amount',
  total_value: 'Total value',
  revenue_type: 'Revenue type',
  currency: 'Currency',
  product: 'Product',
  customer_name: 'Customer name',
  units: 'Units',
  discount_amount: 'Discount monthly amount',
  discount_kind: 'Discount kind',
  discount_months: 'Discount months',
};

/** Fields a subscription import must map before it can be finalized (the invoice number is optional). */
export const SUBSCRIPTION_CSV_REQUIRED_FIELDS = ['started_at', 'customer_id'] as const satisfies readonly SubscriptionCsvField[];

/**
 * Fields of which a subscription import must map one: the amount (exactly one of the monthly
 * amount and the total value) and the period (months, the end date, or both).
 */
export const SUBSCRIPTION_CSV_AMOUNT_FIELDS = ['monthly_amount', 'total_value'] as const satisfies readonly SubscriptionCsvField[];
export const SUBSCRIPTION_CSV_PERIOD_FIELDS = ['months', 'ended_at'] as const satisfies readonly SubscriptionCsvField[];

/** The import page's rule and the finalize call's 422 (the spec's words, the invoice number optional and the alternatives named). */
export const SUBSCRIPTION_CSV_MAPPING_INCOMPLETE_MESSAGE = 'Subscription import requires mapping of monthly_amount or total_value, started_at, customer_id, months or ended_at';
/** Both amounts mapped: which one the row means would be a guess. */
export const SUBSCRIPTION_CSV_BOTH_AMOUNTS_MESSAGE = 'Map Monthly amount or Total value, not both';

/** Largest CSV file an import accepts: 200 MB. */
export const CSV_IMPORT_MAX_FILE_BYTES = 200 * 1024 * 1024;
/** Longest row of an imported CSV file: 64 KB. */
export const CSV_IMPORT_MAX_ROW_BYTES = 64 * 1024;

/** Accepted extension of uploaded import files. */
export const CSV_FILE_EXTENSION = '.csv';

/**
 * An upload left waiting for its mapping (the import page's preview, never finalized) expires
 * this long after it was uploaded: its file is deleted and the import fails (docs/imports.md).
 */
export const CSV_IMPORT_PREVIEW_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Bytes of uploaded files not yet imported (uploading, waiting for the mapping, being imported)
 * one account may hold: 1 GB, five files at the upload limit. An upload past it is refused (413).
 */
export const CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT = 1024 * 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Reports

export const REPORT_RANGE_MIN_MONTHS = 3;
/** 6 years. */
export const REPORT_RANGE_MAX_MONTHS = 72;

/** Default report names are the date followed by one of these suffixes. */
export const DEFAULT_REPORT_NAME_SUFFIXES = [
  'business overview',
  'customer success overview',
  'business report',
] as const;

// ---------------------------------------------------------------------------------------
// Payments

/** A payment's start date may be from 60 days back to one day ahead. */
export const PAYMENT_START_DATE_DAYS_BEFORE = 60;
export const PAYMENT_START_DATE_DAYS_AFTER = 1;
/** Start date as typed in the payment form (dayjs format string). */
export const PAYMENT_START_DATE_INPUT_FORMAT = 'DD-MM-YYYY';

export const ITEM_TYPES = ['recurring', 'metered', 'one_time', 'freemium'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
export const ITEM_TYPE_CODES = {
  recurring: 'R',
  metered: 'M',
  one_time: 'O',
  freemium: 'F',
} as const satisfies Record<ItemType, string>;

export const NEW_PAYMENT_DEFAULTS = {
  durationInMonths: 1,
  itemType: 'recurring',
  quantity: 1,
} as const satisfies { durationInMonths: number; itemType: ItemType; quantity: number };

/** Generated payment ids: 'subh' followed by 12 characters. */
export const GENERATED_PAYMENT_ID_PREFIX = 'subh';
export const GENERATED_PAYMENT_ID_RANDOM_LENGTH = 12;

// ---------------------------------------------------------------------------------------
// Search, suggestions and batches

export const SEARCH_DEBOUNCE_MS = 200;
/** Customer search and segment-value suggestions in the customer drawer. */
export const SUGGESTIONS_LIMIT = 10;
/** Segment-value and product search in sections, filters and segmentation. */
export const SEGMENT_SEARCH_LIMIT = 100;
export const PRODUCT_SEARCH_LIMIT = 100;
/** A segment list shows 10 items, then '{n} more, start typing segment name'. */
export const SEGMENT_LIST_VISIBLE_ITEMS = 10;
/** Metric search filters only when the query is longer than 2 characters. */
export const METRIC_SEARCH_MIN_QUERY_LENGTH = 3;
/** The filter picker's text filter shows the first 5 values. */
export const FILTER_TEXT_VISIBLE_VALUES = 5;

/** Children customers are fetched in batches of 100 ids. */
export const CHILDREN_FETCH_BATCH_SIZE = 100;
/** Payments of a customer's timeline fetched, and answered by the server, when no limit is asked for. */
export const TIMELINE_DEFAULT_LIMIT = 100;
/** Segment value history shows the last 12 entries, newest first. */
export const SEGMENT_HISTORY_ENTRIES = 12;

/** Rows of one page of the customers table (GET /customers). */
export const CUSTOMERS_PAGE_SIZE = 50;
/** The largest `limit` GET /customer/search takes. */
export const CUSTOMER_SEARCH_MAX_LIMIT = 100;
/** Year options of a calculated column's variables (spec: year options 2019-2027). */
export const COLUMN_YEAR_FIRST = 2019;
export const COLUMN_YEAR_LAST = 2027;

/** A customer's payments timeline is sorted newest first unless the user chose otherwise. */
export const CUSTOMER_PAYMENTS_DEFAULT_SORT = 'desc' as const;

// ---------------------------------------------------------------------------------------
// Numbers

export const MOVING_AVERAGE_POINTS = 3;
export const NUMBER_DECIMALS_DEFAULT = 0;
/** Decimals shown when a section sets `decimal`. */
export const NUMBER_DECIMALS_WHEN_SET = 2;
export const COMPACT_NUMBER_SUFFIXES = ['K', 'M', 'B', 'T'] as const;
/** Summary tables show percentages rounded to a whole number. */
export const SUMMARY_PERCENT_DECIMALS = 0;

/** Quarter labels Q1..Q4 start at these zero-based months. */
export const QUARTER_START_MONTHS = [0, 3, 6, 9] as const;
export const QUARTER_LABELS = ['Q1', 'Q2', 'Q3', 'Q4'] as const;

// ---------------------------------------------------------------------------------------
// Charts and sections

export const CHART_HEIGHT_PX = 400;
export const SLIDE_CHART_HEIGHT_PX = 500;
export const CHART_ANIMATION_MS = 1_000;
export const CHART_ASPECT_RATIO = 1.9;
export const COHORT_TABLE_MAX_HEIGHT_PX = 600;
export const DETAILS_DIALOG_WIDTH_PX = 1_200;

export const RESOLUTIONS = ['week', 'month', 'quarter', 'year'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const CHART_CATEGORIES = [
  'values',
  'counts',
  'units',
  'month_over_month_growth',
  'month_over_month_retention',
  'moving_average3',
] as const;
export type ChartCategory = (typeof CHART_CATEGORIES)[number];
/** 'values' is the money category. */
export const MONEY_CHART_CATEGORY = 'values' satisfies ChartCategory;

export const CUSTOMER_METRIC_KINDS = ['mrr', 'total'] as const;
export type CustomerMetricKind = (typeof CUSTOMER_METRIC_KINDS)[number];

/** Segments not in any group are labelled 'Other'. */
export const UNGROUPED_SEGMENT_LABEL = 'Other';
/** Cohort heading of new MRR; month 0 is the total MRR on the last day. */
export const COHORT_INITIAL_LABEL = 'initial';

/** The filter picker hot key (Shift+F). */
export const FILTER_HOT_KEY = 'shift+F';
/** Presentation mode keys (KeyboardEvent.key values); Home and End jump to the first and last slide. */
export const PRESENTATION_KEYS = {
  next: ['ArrowRight', ' '],
  previous: ['ArrowLeft'],
  leave: ['Escape'],
  first: ['Home'],
  last: ['End'],
} as const;
/** The id of a presentation's first slide (the report's title, range, summary and key numbers); the other slides are the sections, by id. */
export const PRESENTATION_TITLE_SLIDE_ID = 'title';

// ---------------------------------------------------------------------------------------
// Drawers (CSS widths)

export const CUSTOMER_DETAILS_DRAWER_WIDTH = '60%';
export const REPORT_VIEW_DRAWER_WIDTH = '35%';
export const ADD_USER_DRAWER_WIDTH = '40%';
/** Other drawers are between 35% and 50% wide. */
export const DRAWER_WIDTH_MIN = '35%';
export const DRAWER_WIDTH_MAX = '50%';

// ---------------------------------------------------------------------------------------
// Account settings, currencies, dates

/** Churn window is entered in days and stored in seconds. */
export const SECONDS_PER_DAY = 86_400;

/** Currencies offered when the account has none in use. */
export const FALLBACK_CURRENCIES = ['usd', 'eur', 'rub'] as const;
/** The cost form's currency menu. */
export const COST_CURRENCIES = ['usd', 'pln', 'eur'] as const;

export const YEAR_OPTIONS_FIRST = 2019;
export const YEAR_OPTIONS_LAST = 2027;
export const YEAR_OPTIONS: readonly number[] = Array.from(
  { length: YEAR_OPTIONS_LAST - YEAR_OPTIONS_FIRST + 1 },
  (_, index) => YEAR_OPTIONS_FIRST + index,
);

// ---------------------------------------------------------------------------------------
// Explore (scatter chart of customers)

export const EXPLORE_REFERENCE_LINES_MONTHS = [12, 24, 36] as const;
export const EXPLORE_Y_AXIS_OPTIONS = ['new_mrr_when_occurred', 'accrued_total', 'growth_since_start', 'mrr'] as const;
export type ExploreYAxis = (typeof EXPLORE_Y_AXIS_OPTIONS)[number];
/** The y axis starts on starting MRR. */
export const EXPLORE_DEFAULT_Y_AXIS = 'new_mrr_when_occurred' satisfies ExploreYAxis;
export const EXPLORE_GROWTH_BUCKETS = [
  '0 %',
  '1% - 100%',
  '> 100%',
  'Negative growth',
  'Starting MRR is 0',
  'Churned customers',
] as const;

// ---------------------------------------------------------------------------------------
// Permissions

/** The permission level with full access (navigation, settings, report creation). */
export const FULL_ACCESS_PERMISSION_LEVEL = 'user';
/** The restricted level that only sees reports through their share URL. */
export const SHARED_REPORT_ONLY_PERMISSION_LEVEL = 'shared_report_only';

/**
 * Sections whose details can list each row's units (`export_details` variant units_sold): MRR and
 * customers (the seats of a customer's live payments) and the revenue charts. The server's
 * `detailsCountUnits` decides; a server test keeps this list equal to it.
 */
export const DETAILS_UNIT_COUNTING_DEFINITIONS: readonly string[] = ['mrr', 'customers', 'one_time_revenue', 'booked_revenue', 'recognized_revenue', 'usage_revenue', 'units_sold'];

/** A report's tags (`PUT /business_reports/{id}` `tags`): at most 20, each 1 to 50 characters. */
export const MAX_REPORT_TAGS = 20;
export const MAX_REPORT_TAG_LENGTH = 50;
