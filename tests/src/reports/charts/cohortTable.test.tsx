import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mergeMantineTheme, DEFAULT_THEME, MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { cohortCellColors, cohortCellTint, cohortColumnLabel, CohortTable, contrastRatio } from '../../../../src/reports/charts/CohortTable';
import { SectionChart } from '../../../../src/reports/charts/SectionChart';
import { theme } from '../../../../src/theme';
import { cohortSection } from './sectionFixtures';

const mantineTheme = mergeMantineTheme(DEFAULT_THEME, theme);

function renderInTheme(ui: ReactNode) {
  return render(
    <MantineProvider theme={theme} env="test">
      {ui}
    </MantineProvider>,
  );
}

describe('CohortTable', () => {
  it("shows a row per cohort with 'initial' money and month 0..n as whole percentages", () => {
    const section = cohortSection();
    renderInTheme(<SectionChart section={section} />);

    const table = screen.getByRole('table');
    const headings = within(table).getAllByRole('columnheader').map((cell) => cell.textContent);
    expect(headings).toEqual(['Cohort', 'initial', 'month 0', 'month 1', 'month 2']);

    const jan = within(table).getByRole('row', { name: /^2025-01/ });
    expect(within(jan).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['$1,000', '100%', '76%', '50%']);
    const feb = within(table).getByRole('row', { name: /^2025-02/ });
    expect(within(feb).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['$500', '99%', '33%', '']);
  });

  it('shows the cohort size for customer cohorts', () => {
    const section = cohortSection({ definition_id: 'customer_cohorts', data_categories: ['counts'], unit: 'count' });
    renderInTheme(<CohortTable section={section} segment={section.segments[0]!} />);
    const jan = screen.getByRole('row', { name: /^2025-01/ });
    expect(within(jan).getAllByRole('cell')[0]).toHaveTextContent(/^4$/);
  });

  it('scrolls within at most 600 px, with a shadow on each edge that has more table beyond it', () => {
    renderInTheme(<SectionChart section={cohortSection()} />);
    const box = screen.getByRole('region', { name: /^Cohort table/ });
    expect(box).toHaveStyle({ maxHeight: '600px', overflow: 'auto' });
    expect(screen.queryByTestId('cohort-more-right')).not.toBeInTheDocument();

    // A table wider and taller than its box: both hints show; scrolled to the end, they go.
    const size = (name: string, value: number) => Object.defineProperty(box, name, { configurable: true, value });
    size('clientWidth', 600);
    size('scrollWidth', 1400);
    size('clientHeight', 600);
    size('scrollHeight', 900);
    fireEvent.scroll(box);
    expect(screen.getByTestId('cohort-more-right')).toBeInTheDocument();
    expect(screen.getByTestId('cohort-more-below')).toBeInTheDocument();
    size('scrollLeft', 800);
    size('scrollTop', 300);
    fireEvent.scroll(box);
    expect(screen.queryByTestId('cohort-more-right')).not.toBeInTheDocument();
    expect(screen.queryByTestId('cohort-more-below')).not.toBeInTheDocument();
  });

  it('writes each cell in the colour that contrasts with its background by at least 4.5:1, light and dark', () => {
    for (const dark of [false, true]) {
      const backgrounds = new Set<string>();
      for (let share = 0; share <= 1.0001; share += 0.05) {
        const { background, color } = cohortCellColors(cohortCellTint(share), dark, mantineTheme);
        backgrounds.add(background);
        expect(contrastRatio(background, color), `${dark ? 'dark' : 'light'} ${share}: ${color} on ${background}`).toBeGreaterThanOrEqual(4.5);
      }
      // A ramp: every share step is a colour of its own, the ends far apart.
      expect(backgrounds.size).toBeGreaterThan(15);
      const low = cohortCellColors(cohortCellTint(0), dark, mantineTheme).background;
      const high = cohortCellColors(cohortCellTint(1), dark, mantineTheme).background;
      expect(contrastRatio(low, high)).toBeGreaterThan(2);
    }
    // Pale cells carry dark text; deep ones white (never white on pale).
    expect(cohortCellColors(cohortCellTint(0.1), false, mantineTheme).color).toBe('#000000');
    expect(cohortCellColors(cohortCellTint(1), false, mantineTheme).color).toBe('#ffffff');
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
  });

  it('paints the cells with the text colour chosen for their background', () => {
    renderInTheme(<SectionChart section={cohortSection()} />);
    const jan = screen.getByRole('row', { name: /^2025-01/ });
    const [, month0] = within(jan).getAllByRole('cell');
    const expected = cohortCellColors(cohortCellTint(1), false, mantineTheme);
    expect(month0).toHaveStyle({ color: expected.color, background: expected.background });
  });

  it('tints cells by value: stronger for higher shares, none for an empty cell', () => {
    expect(cohortCellTint(1)).toBeGreaterThan(cohortCellTint(0.5));
    expect(cohortCellTint(0.5)).toBeGreaterThan(cohortCellTint(0.1));
    expect(cohortCellTint(1.4)).toBe(cohortCellTint(1));
    expect(cohortCellTint(null)).toBe(0);

    renderInTheme(<SectionChart section={cohortSection()} />);
    const jan = screen.getByRole('row', { name: /^2025-01/ });
    const [, month0, month1] = within(jan).getAllByRole('cell');
    expect(Number(month0?.dataset.tint)).toBeGreaterThan(Number(month1?.dataset.tint));
    expect(month0?.getAttribute('style')).toContain('background');
  });

  it('names period columns by the resolution', () => {
    expect(cohortColumnLabel('month', 0)).toBe('month 0');
    expect(cohortColumnLabel('quarter', 2)).toBe('quarter 2');
  });

  it('reports the clicked cell with its cohort and column', async () => {
    const user = userEvent.setup({ delay: null });
    const onPointClick = vi.fn();
    renderInTheme(<SectionChart section={cohortSection()} onPointClick={onPointClick} />);

    await user.click(screen.getByRole('button', { name: '2025-01 month 1' }));
    expect(onPointClick).toHaveBeenCalledWith(
      expect.objectContaining({ sectionId: 'sec_cohorts', segmentId: 'total', cohortDate: '2025-01-01', time: '2025-02-01', column: 1, value: 0.755 }),
    );

    await user.click(screen.getByRole('button', { name: '2025-02 initial' }));
    expect(onPointClick).toHaveBeenLastCalledWith(expect.objectContaining({ column: 'initial', cohortDate: '2025-02-01' }));
  });
});
