import { Suspense, useEffect } from 'react';
import { Route, useLocation } from 'wouter';
import { AppLayout } from './components/AppLayout';
import { AppErrorBoundary } from './components/ErrorBoundary';
import { CardSkeleton, PageSkeleton } from './components/PageSkeleton';
import { SignInLayout } from './components/SignInLayout';
import { NotFoundPage } from './pages/NotFoundPage';
import { useCurrentRoute } from './routes';
import { RouteGuard } from './session/RouteGuard';

const PRODUCT_NAME = 'Subscope';

/**
 * Renders the route of the current location inside its area's layout. The layout element
 * stays the same while moving between routes of one area, so the shell never remounts;
 * a lazy page shows a skeleton while it loads and a render error shows the app fallback.
 * App routes pass the route guard (their `access`); sign-in area routes are public and
 * their pages show what fits the session themselves.
 */
export function AppRoutes() {
  const [location] = useLocation();
  const route = useCurrentRoute();
  const title = route?.title ?? 'Page not found';

  useEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
  }, [title]);

  if (route?.area === 'signIn') {
    return (
      <SignInLayout>
        <AppErrorBoundary resetKey={location}>
          <Suspense fallback={<CardSkeleton />}>
            <Route path={route.path} component={route.page} />
          </Suspense>
        </AppErrorBoundary>
      </SignInLayout>
    );
  }

  return (
    <AppLayout>
      <AppErrorBoundary resetKey={location}>
        <Suspense fallback={<PageSkeleton />}>
          {route ? (
            <RouteGuard access={route.access}>
              <Route path={route.path} component={route.page} />
            </RouteGuard>
          ) : (
            <NotFoundPage />
          )}
        </Suspense>
      </AppErrorBoundary>
    </AppLayout>
  );
}
