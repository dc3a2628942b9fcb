import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import type { MantineTheme } from '@mantine/core';
import type { ChartColors } from './chartOptions';

/** Series colours in order, from the theme so they follow its palette. */
const SERIES_COLORS = ['brand', 'teal', 'orange', 'grape', 'cyan', 'yellow', 'pink', 'lime', 'indigo', 'red', 'green', 'violet'] as const;

function chartColors(theme: MantineTheme, dark: boolean): ChartColors {
  const shade = dark ? 4 : 6;
  return {
    dark,
    palette: SERIES_COLORS.map((name) => theme.colors[name]?.[shade] ?? theme.colors.blue[shade] ?? '#4a52d9'),
    text: dark ? (theme.colors.dark[1] ?? '#c9c9c9') : (theme.colors.gray[7] ?? '#495057'),
    grid: dark ? (theme.colors.dark[4] ?? '#424242') : (theme.colors.gray[3] ?? '#dee2e6'),
    reference: theme.colors.red[dark ? 5 : 7] ?? '#e03131',
  };
}

/** The chart colours of the theme and colour scheme in use (every chart of the app draws with them). */
export function useChartColors(): ChartColors {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  return chartColors(theme, dark);
}

/** ApexCharts options every small chart shares with the section charts: colours, text, grid, theme. */
export function apexLook(colors: ChartColors) {
  return {
    colors: [...colors.palette],
    theme: { mode: colors.dark ? ('dark' as const) : ('light' as const) },
    grid: { borderColor: colors.grid, strokeDashArray: 3 },
    tooltip: { theme: colors.dark ? ('dark' as const) : ('light' as const) },
  };
}
