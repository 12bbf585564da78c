import { FilterOutlined } from '@ant-design/icons'
import { Button } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { usePhone } from '../hooks/usePhone'

/**
 * Phones: a list's filters fold away behind one button (as on the inspection pages), so the first
 * screen shows the list, not the filter form. `hidden` goes on the filter form; `close` folds it
 * again once a search is made, so the results are what the phone shows.
 */
export function useFilterFold(testId: string) {
  const { t } = useTranslation()
  const phone = usePhone()
  const [open, setOpen] = useState(false)
  const toggle = phone ? (
    <Button
      icon={<FilterOutlined />}
      data-testid={testId}
      aria-expanded={open}
      style={{ minHeight: 44, marginBottom: 12 }}
      onClick={() => setOpen((o) => !o)}
    >
      {t('common.filters')}
    </Button>
  ) : null
  return { phone, toggle, hidden: phone && !open, close: () => setOpen(false) }
}
