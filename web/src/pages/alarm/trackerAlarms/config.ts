import { Tag } from 'antd'
import { createElement } from 'react'
import { alarmDataFlexApi, alarmStatusOptions, type AlarmDataFlex } from '../../../api/alarm/flex'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { loadStationOptions } from '../../device/common/fields'
import { comparisonOptions } from '../trackerRules/logic'

/** Tag colours of the alarm status: active red, acknowledged orange, cleared green. */
export const statusColor = (status: unknown): string =>
  status === 0 || status === '0' ? 'red' : status === 1 || status === '1' ? 'orange' : 'green'

/**
 * /flex/alarmData (contract `alarms.md` "Brackets"): the alarms the bracket rules raised, filtered
 * by station, status and time; a detail view; delete (the server refuses an open alarm with its
 * message, shown by the request client).
 */
export function alarmDataConfig(): CrudConfig<AlarmDataFlex> {
  const fields: CrudField<AlarmDataFlex>[] = [
    {
      name: 'stationId',
      label: 'analytics.flexData.station',
      type: 'select',
      loadOptions: loadStationOptions,
      search: true,
      hideInTable: true,
      hideInForm: true,
    },
    {
      name: 'status',
      label: 'analytics.flexData.status',
      type: 'select',
      numeric: true,
      loadOptions: alarmStatusOptions,
      search: true,
      width: 100,
      render: (value, row) =>
        createElement(
          Tag,
          { color: statusColor(value) },
          row.statusName ??
            (typeof value === 'number' || typeof value === 'string' ? String(value) : ''),
        ),
    },
    { name: 'time', label: 'analytics.flexData.time', type: 'dateRange', search: true },
    { name: 'stationName', label: 'analytics.flexData.stationName' },
    { name: 'deviceName', label: 'analytics.flexData.device' },
    { name: 'warningName', label: 'analytics.flexData.warningName' },
    { name: 'variableName', label: 'analytics.flexData.variable' },
    {
      name: 'comparison',
      label: 'analytics.flexData.comparison',
      type: 'select',
      options: comparisonOptions,
      width: 120,
    },
    { name: 'value', label: 'analytics.flexData.value', width: 90 },
    { name: 'threshold', label: 'analytics.flexData.threshold', width: 90 },
    {
      name: 'level',
      label: 'analytics.flexData.level',
      type: 'select',
      dict: 'alarm_level',
      numeric: true,
      width: 90,
    },
    { name: 'firstTime', label: 'analytics.flexData.firstTime', width: 170, hideInTable: true },
    { name: 'lastTime', label: 'analytics.flexData.lastTime', width: 170 },
    { name: 'occurrences', label: 'analytics.flexData.occurrences', width: 80, hideInTable: true },
    { name: 'detail', label: 'analytics.flexData.detail', type: 'textarea', hideInTable: true },
    { name: 'ackUserName', label: 'analytics.flexData.ackUserName', hideInTable: true },
    { name: 'ackTime', label: 'analytics.flexData.ackTime', hideInTable: true },
    { name: 'ackNote', label: 'analytics.flexData.ackNote', hideInTable: true },
    { name: 'clearUserName', label: 'analytics.flexData.clearUserName', hideInTable: true },
    { name: 'clearTime', label: 'analytics.flexData.clearTime', hideInTable: true },
    { name: 'clearNote', label: 'analytics.flexData.clearNote', hideInTable: true },
  ]
  return {
    menuCode: 'alarmDataFlex',
    api: alarmDataFlexApi,
    fields,
    without: ['add', 'edit'],
  }
}
