import { DatePicker, Select, Space } from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { useTranslation } from 'react-i18next'
import {
  PERIOD_FORMAT,
  PERIOD_TYPES,
  switchType,
  type Period,
  type PeriodType,
} from '../../../api/report/period'

export interface PeriodPickerProps {
  value: Period
  onChange: (next: Period) => void
  /** The date on screen (the hub's period title), where a type switch starts from. */
  anchor?: string
  /** The period the hub chose when none was picked (its title), shown in the empty picker. */
  shownTitle?: string
  testId: string
}

const pickerOf: Record<PeriodType, 'date' | 'month' | 'year'> = {
  day: 'date',
  month: 'month',
  year: 'year',
  years: 'year',
  range: 'date',
}

/** A picked date as the calendar string it shows (no time zone involved). */
const asText = (d: Dayjs | null, type: PeriodType) =>
  d ? d.format(PERIOD_FORMAT[type]) : undefined
const asDay = (s: string | undefined, type: PeriodType) =>
  s ? dayjs(s, PERIOD_FORMAT[type]) : null

/**
 * The period of a report: a day (by hours), month (by days), year (by months), several years or a
 * range of days (at most 366). The dates are the station's calendar dates as picked.
 */
export default function PeriodPicker({
  value,
  onChange,
  anchor,
  shownTitle,
  testId,
}: PeriodPickerProps) {
  const { t } = useTranslation()
  const type = value.type
  const format = PERIOD_FORMAT[type]
  return (
    <Space.Compact data-testid={testId}>
      <Select<PeriodType>
        data-testid={`${testId}-type`}
        value={type}
        style={{ width: 96 }}
        onChange={(next) => onChange(switchType(next, anchor))}
        options={PERIOD_TYPES.map((p) => ({ value: p, label: t(`report.period.${p}`) }))}
      />
      {type === 'years' || type === 'range' ? (
        <DatePicker.RangePicker
          data-testid={`${testId}-range`}
          picker={pickerOf[type]}
          format={format}
          allowClear={false}
          style={{ width: type === 'range' ? 240 : 170 }}
          value={[asDay(value.start, type), asDay(value.end, type)]}
          onChange={(range) =>
            onChange({
              type,
              start: asText(range?.[0] ?? null, type),
              end: asText(range?.[1] ?? null, type),
            })
          }
        />
      ) : (
        <DatePicker
          data-testid={`${testId}-date`}
          picker={pickerOf[type]}
          format={format}
          allowClear={false}
          style={{ width: 140 }}
          value={asDay(value.date, type)}
          placeholder={shownTitle ?? t('report.period.today')}
          onChange={(d: Dayjs | null) => onChange({ type, date: asText(d, type) })}
        />
      )}
    </Space.Compact>
  )
}
