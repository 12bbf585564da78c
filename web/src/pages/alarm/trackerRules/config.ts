import type { Rule } from 'antd/es/form'
import {
  alarmSettingFlexApi,
  listFlexVariables,
  type AlarmSettingFlex,
  type FlexVariable,
} from '../../../api/alarm/flex'
import type { CrudConfig, CrudField, Translate } from '../../../components/crud/types'
import { loadStationOptions } from '../../device/common/fields'
import {
  comparisonOptions,
  validateFlexSetting,
  variableText,
  type FlexSettingField,
} from './logic'

/** The variables last loaded (the form's options), for the "unknown variable" check. */
let knownVariables: FlexVariable[] | null = null

const loadVariableOptions = async () => {
  knownVariables = await listFlexVariables()
  return knownVariables.map((v) => ({ value: v.key, label: variableText(v) }))
}

/** A field's rule from the whole-rule validation (the other fields' values matter). */
const issueRule =
  (field: FlexSettingField) =>
  (t: Translate): Rule[] => [
    ({ getFieldsValue }) => ({
      validator: () => {
        const issue = validateFlexSetting(
          getFieldsValue(true) as Record<string, unknown>,
          knownVariables,
        ).find((i) => i.field === field)
        return issue ? Promise.reject(new Error(t(issue.message))) : Promise.resolve()
      },
    }),
  ]

/**
 * /flex/alarmSetting (contract `alarms.md` "Brackets"): a tracker variable compared with a
 * threshold (or a range for inside / outside) for a duration raises a bracket alarm of the level.
 */
export function alarmSettingConfig(): CrudConfig<AlarmSettingFlex> {
  const fields: CrudField<AlarmSettingFlex>[] = [
    {
      name: 'stationId',
      label: 'analytics.flexSetting.station',
      type: 'select',
      required: 'analytics.common.selectStation',
      loadOptions: loadStationOptions,
      search: true,
      hideInTable: true,
    },
    { name: 'stationName', label: 'analytics.flexSetting.stationName', hideInForm: true },
    {
      name: 'variable',
      label: 'analytics.flexSetting.variable',
      type: 'select',
      loadOptions: loadVariableOptions,
      rules: issueRule('variable'),
      hideInTable: true,
    },
    {
      name: 'variableName',
      label: 'analytics.flexSetting.variable',
      hideInForm: true,
      render: (value, row) => (typeof value === 'string' && value ? value : (row.variable ?? '')),
    },
    {
      name: 'comparison',
      label: 'analytics.flexSetting.comparison',
      type: 'select',
      options: comparisonOptions,
      rules: issueRule('comparison'),
      width: 130,
    },
    {
      name: 'threshold',
      label: 'analytics.flexSetting.threshold',
      type: 'number',
      rules: issueRule('threshold'),
      dependencies: ['comparison'],
      width: 100,
    },
    {
      name: 'thresholdHigh',
      label: 'analytics.flexSetting.thresholdHigh',
      type: 'number',
      rules: issueRule('thresholdHigh'),
      dependencies: ['comparison', 'threshold'],
      trigger: 'change',
      width: 100,
    },
    {
      name: 'durationSeconds',
      label: 'analytics.flexSetting.durationSeconds',
      type: 'number',
      rules: issueRule('durationSeconds'),
      width: 110,
    },
    {
      name: 'level',
      label: 'analytics.flexSetting.level',
      type: 'select',
      dict: 'alarm_level',
      numeric: true,
      required: 'analytics.flexSetting.levelRequired',
      search: false,
      width: 100,
    },
    {
      name: 'enabled',
      label: 'analytics.flexSetting.enabled',
      type: 'select',
      required: 'analytics.flexSetting.enabledRequired',
      options: [
        { value: 1, label: 'analytics.flexSetting.yes' },
        { value: 0, label: 'analytics.flexSetting.no' },
      ],
      width: 80,
    },
    {
      name: 'remark',
      label: 'analytics.flexSetting.remark',
      type: 'textarea',
      max: 500,
      hideInTable: true,
    },
  ]
  return {
    menuCode: 'alarmSettingFlex',
    api: alarmSettingFlexApi,
    fields,
    addDefaults: { enabled: 1, durationSeconds: 0, comparison: '>' },
  }
}
