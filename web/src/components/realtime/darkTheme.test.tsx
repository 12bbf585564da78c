import { act, cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useSettingsStore } from '../../stores/settings'
import { renderInApp } from '../../test/render'
import MapPicker from '../map/MapPicker'
import Chart from './Chart'
import { CHART_THEMES } from './chartTheme'

afterEach(() => {
  cleanup()
  act(() => useSettingsStore.getState().setTheme('theme-white'))
})

const option = { xAxis: { type: 'category', data: ['a'] }, yAxis: {}, series: [] }

describe('charts and the map follow the app theme', () => {
  it('a chart draws with the dark chart theme in dark mode and the light one otherwise', () => {
    renderInApp(<Chart option={option} data-testid="c" />)
    expect(screen.getByTestId('c').getAttribute('data-chart-theme')).toBe(CHART_THEMES.light)
    act(() => useSettingsStore.getState().setTheme('theme-dark'))
    expect(screen.getByTestId('c').getAttribute('data-chart-theme')).toBe(CHART_THEMES.dark)
  })

  it('the big screen keeps its charts dark whatever the app theme', () => {
    renderInApp(<Chart option={option} data-testid="c" theme="dark" />)
    expect(screen.getByTestId('c').getAttribute('data-chart-theme')).toBe(CHART_THEMES.dark)
  })

  it('the location picker turns dark in dark mode (background, tiles filter class)', () => {
    act(() => useSettingsStore.getState().setTheme('theme-dark'))
    renderInApp(<MapPicker />)
    const canvas = screen.getByTestId('map-canvas')
    expect(canvas.classList.contains('map-picker-dark')).toBe(true)
    expect(canvas.style.background).toBe('rgb(11, 22, 38)')
    act(() => useSettingsStore.getState().setTheme('theme-white'))
    expect(canvas.classList.contains('map-picker-dark')).toBe(false)
    expect(canvas.style.background).toBe('rgb(238, 243, 248)')
  })
})
