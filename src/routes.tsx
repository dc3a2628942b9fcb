import { lazy } from 'react';
import type { ComponentType, LazyExoticComponent } from 'react';
import { matchRoute, useLocation, useRouter } from 'wouter';
import type { Parser, RouteComponentProps } from 'wouter';
import type { RouteAccess } from '../models/auth';
import { InvitationPage } from './pages/InvitationPage';
import { ReportGroupPage } from './pages/ReportGroupPage';
import { ResetPasswordPage } from './pages/ResetPasswordPage';
import { ResetPasswordRequestPage } from './pages/ResetPasswordRequestPage';
import { SignInPage } from './pages/SignInPage';
import { SignUpPage } from './pages/SignUpPage';
import { TokenSignInPage } from './pages/TokenSignInPage';

/** 'signIn' pages render in the centred card layout; 'app' pages inside the app shell. */
export type RouteArea = 'signIn' | 'app';

/** The top-bar link a route belongs to, highlighted while the route is open. */
export type NavKey = 'reports' | 'customers' | 'payments' | 'costs' | 'invoices';

/** A page receives the route's params (also readable with wouter's useParams). */
export type PageComponent =
  | ComponentType<RouteComponentProps>
  | LazyExoticComponent<ComponentType<RouteComponentProps>>;

export interface AppRoute {
  /** A wouter pattern. */
  path: string;
  /** The document title (before ' · Subscope'). */
  title: string;
  page: PageComponent;
  area: RouteArea;
  /**
   * Who may open the route: anyone ('public'), any signed-in user ('signedIn'), or a
   * full-access user only ('user'; others are sent to /sign_in). Enforced by `RouteGuard`.
   */
  access: RouteAccess;
  nav?: NavKey;
}

/** React.lazy for a named export, so a page file keeps its named export. */
function lazyPage<Name extends string>(
  load: () => Promise<Record<Name, ComponentType<RouteComponentProps>>>,
  name: Name,
): LazyExoticComponent<ComponentType<RouteComponentProps>> {
  return lazy(async () => ({ default: (await load())[name] }));
}

const HomePage = lazyPage(() => import('./pages/HomePage'), 'HomePage');
const ReportLibraryPage = lazyPage(() => import('./pages/ReportLibraryPage'), 'ReportLibraryPage');
const ReportPage = lazyPage(() => import('./pages/ReportPage'), 'ReportPage');
const SharedReportPage = lazyPage(() => import('./pages/ReportPage'), 'SharedReportPage');
const DemoReportPage = lazyPage(() => import('./pages/ReportPage'), 'DemoReportPage');
const SectionEditorPage = lazyPage(() => import('./pages/SectionEditorPage'), 'SectionEditorPage');
const ExplorePage = lazyPage(() => import('./pages/ExplorePage'), 'ExplorePage');
const SettingsPage = lazyPage(() => import('./pages/SettingsPage'), 'SettingsPage');
const UsersPage = lazyPage(() => import('./pages/UsersPage'), 'UsersPage');
const CustomersPage = lazyPage(() => import('./pages/CustomersPage'), 'CustomersPage');
const PaymentsPage = lazyPage(() => import('./pages/PaymentsPage'), 'PaymentsPage');
const InvoicesPage = lazyPage(() => import('./pages/InvoicesPage'), 'InvoicesPage');
const ImportSegmentsPage = lazyPage(() => import('./pages/ImportSegmentsPage'), 'ImportSegmentsPage');
const ImportCostsPage = lazyPage(() => import('./pages/ImportCostsPage'), 'ImportCostsPage');
const ImportSubscriptionsPage = lazyPage(() => import('./pages/ImportSubscriptionsPage'), 'ImportSubscriptionsPage');
const CostsPage = lazyPage(() => import('./pages/CostsPage'), 'CostsPage');
const GettingStartedPage = lazyPage(() => import('./pages/GettingStartedPage'), 'GettingStartedPage');

/**
 * Every route of the product, first match wins (so /reports/library precedes
 * /reports/:secret). Sign-in area pages are small and load with the entry; app pages are
 * lazy chunks.
 */
export const routes: readonly AppRoute[] = [
  // Sign-in area, outside the app shell.
  { path: '/sign_in', title: 'Sign in', page: SignInPage, area: 'signIn', access: 'public' },
  { path: '/sign_up', title: 'Sign up', page: SignUpPage, area: 'signIn', access: 'public' },
  { path: '/reset_password', title: 'Reset password', page: ResetPasswordRequestPage, area: 'signIn', access: 'public' },
  { path: '/reset_password/:token', title: 'Choose a new password', page: ResetPasswordPage, area: 'signIn', access: 'public' },
  { path: '/invitation/:token', title: 'Accept invitation', page: InvitationPage, area: 'signIn', access: 'public' },
  { path: '/sign_in_via_token/:jwtToken', title: 'Signing in', page: TokenSignInPage, area: 'signIn', access: 'public' },

  // Reports.
  { path: '/', title: 'Reports', page: HomePage, area: 'app', access: 'signedIn', nav: 'reports' },
  { path: '/reports/library', title: 'Create new report', page: ReportLibraryPage, area: 'app', access: 'user', nav: 'reports' },
  { path: '/reports/shared/:secret', title: 'Shared report', page: SharedReportPage, area: 'app', access: 'public' },
  { path: '/reports/group/:secret', title: 'Report', page: ReportGroupPage, area: 'app', access: 'public' },
  // The server decides who may read a report by secret (accounts can allow anonymous access).
  { path: '/reports/:secret', title: 'Report', page: ReportPage, area: 'app', access: 'public', nav: 'reports' },
  { path: '/reports/:secret/new-section', title: 'Add a chart section', page: SectionEditorPage, area: 'app', access: 'user', nav: 'reports' },
  { path: '/reports/:secret/new-section/:sectionId', title: 'Edit section calculation', page: SectionEditorPage, area: 'app', access: 'user', nav: 'reports' },
  { path: '/demo/:secret', title: 'Demo report', page: DemoReportPage, area: 'app', access: 'public' },
  { path: '/explore/:sectionId/:segmentId/:date', title: 'Explore customers', page: ExplorePage, area: 'app', access: 'user', nav: 'reports' },

  // Data and account.
  { path: '/customers', title: 'Customers', page: CustomersPage, area: 'app', access: 'user', nav: 'customers' },
  { path: '/customers/:customerId', title: 'Customers', page: CustomersPage, area: 'app', access: 'user', nav: 'customers' },
  { path: '/payments', title: 'Payments', page: PaymentsPage, area: 'app', access: 'user', nav: 'payments' },
  { path: '/subscriptions', title: 'Payments', page: PaymentsPage, area: 'app', access: 'user', nav: 'payments' },
  { path: '/invoices', title: 'Rejected invoices', page: InvoicesPage, area: 'app', access: 'user', nav: 'invoices' },
  { path: '/costs', title: 'Costs', page: CostsPage, area: 'app', access: 'user', nav: 'costs' },
  { path: '/import-segments', title: 'Import attribute values', page: ImportSegmentsPage, area: 'app', access: 'user' },
  { path: '/import-subscriptions', title: 'Import payments', page: ImportSubscriptionsPage, area: 'app', access: 'user' },
  { path: '/import-costs', title: 'Import costs', page: ImportCostsPage, area: 'app', access: 'user' },
  { path: '/settings', title: 'Settings', page: SettingsPage, area: 'app', access: 'user' },
  { path: '/users', title: 'Users', page: UsersPage, area: 'app', access: 'user' },
  { path: '/getting-started', title: 'Getting started', page: GettingStartedPage, area: 'app', access: 'signedIn' },
];

/** The first route whose pattern matches the path, or undefined (the 404 page). */
export function findRoute(parser: Parser, path: string, table: readonly AppRoute[] = routes): AppRoute | undefined {
  return table.find((route) => matchRoute(parser, route.path, path)[0]);
}

/** The route of the current location, or undefined on an unknown path. */
export function useCurrentRoute(): AppRoute | undefined {
  const [location] = useLocation();
  const { parser } = useRouter();
  return findRoute(parser, location);
}
